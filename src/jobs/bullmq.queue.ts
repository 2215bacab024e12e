import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { openQueue, type BullQueue } from './bullmq-backend';
import type { JobTicket } from './job-record';
import { JobQueue } from './job-queue';

/**
 * `general.async.queue: redis | postgres`: the server only adds jobs to BullMQ; `interlude worker`
 * processes run them. A cancel reaches the worker through the job's row, which workers check.
 */
@Injectable()
export class BullJobQueue extends JobQueue implements OnApplicationShutdown {
  private readonly queue: BullQueue;

  constructor(config: ServerConfig) {
    super();
    this.queue = openQueue(config.general.async, config.general.db_url);
  }

  checkCapacity(): void {
    // The queue lives in Redis or PostgreSQL, not in this process's memory.
  }

  enqueue(ticket: JobTicket): Promise<void> {
    return this.queue.add(ticket);
  }

  cancel(id: string): Promise<void> {
    return this.queue.remove(id);
  }

  onApplicationShutdown(): Promise<void> {
    return this.queue.close();
  }
}
