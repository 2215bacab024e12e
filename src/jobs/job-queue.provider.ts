import type { Provider } from '@nestjs/common';
import type { JobQueueDriver } from '../config/async.schema';
import { pickAdapter } from '../core/adapters';
import { BullJobQueue } from './bullmq.queue';
import { InProcessJobQueue } from './in-process.queue';
import { JobQueue } from './job-queue';

/** The job queue `general.async.queue` names (with its start-up and shutdown hooks). */
export function jobQueueProviders(driver: JobQueueDriver): Provider[] {
  const bull = (): Provider[] => [BullJobQueue, { provide: JobQueue, useExisting: BullJobQueue }];
  return pickAdapter<Provider[]>('general.async.queue', driver, {
    in_process: () => [InProcessJobQueue, { provide: JobQueue, useExisting: InProcessJobQueue }],
    redis: bull,
    postgres: bull,
  });
}
