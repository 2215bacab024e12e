import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { JobTicket } from './job-record';
import { JobQueue } from './job-queue';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';

export const SERVER_RESTARTED = 'server restarted';

/**
 * `general.async.queue: in_process`: jobs run in the server, with the JobRunner's slots (at most
 * `max_concurrent_jobs` at once, a share per user, none held while a job waits for a person); the rest
 * wait in memory in submission order. A job this process did not finish cannot go on after a
 * restart: at start-up, every job left unfinished becomes `failure` ("server restarted").
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private stopped = false;
  private readonly maxQueued: number;

  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    config: ServerConfig,
  ) {
    super();
    this.maxQueued = config.general.async.max_queued_jobs;
  }

  async onModuleInit(): Promise<void> {
    const failed = await this.store.failUnfinished(SERVER_RESTARTED);
    if (failed > 0) this.logger.warn(`${failed} unfinished async jobs marked failure: ${SERVER_RESTARTED}`);
  }

  beforeApplicationShutdown(): void {
    // Rows stay as they are; the next start-up marks them, so none is left `running` for good.
    this.stopped = true;
    this.runner.stop();
  }

  checkCapacity(): void {
    const waiting = this.runner.waiting;
    if (waiting >= this.maxQueued) {
      throw new AppError(
        ErrorCode.TooManyWaiting,
        `${waiting} async jobs are waiting to run (general.async.max_queued_jobs); try again later`,
        { headers: { 'Retry-After': '30' } },
      );
    }
  }

  async enqueue(ticket: JobTicket): Promise<void> {
    if (this.stopped) return;
    this.runner
      .run(ticket)
      .catch((err: unknown) => this.logger.error(`async job failed to run: ${(err as Error).message}`));
  }

  async cancel(id: string): Promise<void> {
    this.runner.cancel(id);
  }
}
