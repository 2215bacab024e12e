import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { JobTicket } from './job-record';
import { JobQueue } from './job-queue';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';

export const SERVER_RESTARTED = 'server restarted';

/**
 * `general.async.queue: in_process`: jobs run in the server, at most `max_concurrent_jobs` at once,
 * the rest wait in memory in submission order. A job this process did not finish cannot go on after
 * a restart: at start-up, every job left unfinished becomes `failure` ("server restarted").
 */
@Injectable()
export class InProcessJobQueue extends JobQueue implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly waiting: JobTicket[] = [];
  private running = 0;
  private stopped = false;
  private readonly concurrency: number;
  private readonly maxQueued: number;

  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    config: ServerConfig,
  ) {
    super();
    const settings = config.general.async;
    this.concurrency = settings.max_concurrent_jobs ?? config.frontEnd.max_running_async_jobs;
    this.maxQueued = settings.max_queued_jobs;
  }

  async onModuleInit(): Promise<void> {
    const failed = await this.store.failUnfinished(SERVER_RESTARTED);
    if (failed > 0) this.logger.warn(`${failed} unfinished async jobs marked failure: ${SERVER_RESTARTED}`);
  }

  beforeApplicationShutdown(): void {
    // Rows stay as they are; the next start-up marks them, so none is left `running` for good.
    this.stopped = true;
    this.waiting.length = 0;
    this.runner.stop();
  }

  checkCapacity(): void {
    if (this.waiting.length >= this.maxQueued) {
      throw new AppError(
        ErrorCode.TooManyWaiting,
        `${this.waiting.length} async jobs are waiting to run (general.async.max_queued_jobs); try again later`,
        { headers: { 'Retry-After': '30' } },
      );
    }
  }

  async enqueue(ticket: JobTicket): Promise<void> {
    if (this.stopped) return;
    this.waiting.push(ticket);
    this.pump();
  }

  async cancel(id: string): Promise<void> {
    const at = this.waiting.findIndex((t) => t.id === id);
    if (at >= 0) this.waiting.splice(at, 1);
    this.runner.cancel(id);
  }

  private pump(): void {
    while (!this.stopped && this.running < this.concurrency && this.waiting.length > 0) {
      const ticket = this.waiting.shift()!;
      this.running++;
      this.runner
        .run(ticket)
        .catch((err: unknown) => this.logger.error(`async job failed to run: ${(err as Error).message}`))
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}
