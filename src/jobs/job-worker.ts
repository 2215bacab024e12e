import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { openWorker, type BullWorker } from './bullmq-backend';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';

/**
 * `interlude worker`: takes jobs from BullMQ and runs them with the JobRunner. A worker that dies
 * mid-job stops renewing its lock; BullMQ's stalled-job check hands the job to another worker, which
 * runs it again (at least once). The row's conditional updates keep one final status.
 */
@Injectable()
export class JobWorker implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobWorker');
  private worker?: BullWorker;

  constructor(
    private readonly runner: JobRunner,
    private readonly store: JobStore,
    private readonly config: ServerConfig,
  ) {}

  onModuleInit(): void {
    const settings = this.config.general.async;
    if (settings.queue === 'in_process') {
      throw new Error('interlude worker needs general.async.queue: redis or postgres (it is in_process)');
    }
    this.worker = openWorker(settings, this.config.general.db_url, (job) => this.runner.run(job.data), {
      concurrency: settings.max_concurrent_jobs ?? this.config.frontEnd.max_running_async_jobs,
    });
    this.worker.on('error', (err) => this.logger.error(`queue: ${err.message}`));
    // BullMQ gave up on the job (it stalled too often, or the runner itself failed): record why.
    this.worker.on('failed', (job, err) => {
      if (!job) return;
      this.store
        .finish(job.data.id, { status: 'failure', error: err.message })
        .catch((e: unknown) => this.logger.error(`job ${job.data.id}: ${(e as Error).message}`));
    });
  }

  /**
   * Takes no new job and waits for the ones under way to end, before the engine's own shutdown would
   * cancel them (which would record `interrupted` for jobs nobody cancelled). Killed before they end,
   * the worker leaves them to the others (their lock expires).
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
  }
}
