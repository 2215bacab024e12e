import { Injectable, Logger, type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import type { Job } from 'bullmq';
import { delayedError, openWorker, putBack, type BullWorker } from './bullmq-backend';
import type { JobTicket } from './job-record';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';

/**
 * A job whose owner runs their share waits here this long for room, then goes back to the queue for
 * as long again (any worker may take it then): the worker takes the jobs behind it meanwhile, without
 * cycling through a backlog of that owner's jobs faster than this.
 */
const HELD_MS = 1000;

/**
 * `interlude worker`: takes jobs from BullMQ and runs them with the JobRunner, at most as many at once
 * as it has slots. A worker that dies mid-job stops renewing its lock; BullMQ's stalled-job check
 * hands the job to another worker, which runs it again (at least once). The row's conditional
 * updates keep one final status.
 *
 * A job that waits for a person (with the shared store) leaves BullMQ's active jobs, so the worker
 * takes the next one: it goes to the delayed set, its delay renewed like a lock while this worker
 * runs it, and removed when it ends; a worker that dies leaves it to come due, and to run again
 * elsewhere. A job whose owner runs their share already goes back to the queue for a while, so the
 * jobs behind it are taken meanwhile.
 */
@Injectable()
export class JobWorker implements OnModuleInit, BeforeApplicationShutdown {
  private readonly logger = new Logger('JobWorker');
  private worker?: BullWorker;
  /** Jobs that left BullMQ's active set to wait for a person: their delay's renewal. */
  private readonly parked = new Map<Job<JobTicket>, NodeJS.Timeout>();
  private stopping = false;

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
    this.worker = openWorker(settings, this.config.general.db_url, (job, token) => this.take(job, token), {
      concurrency: this.runner.slots.limits.concurrency,
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
   * the worker leaves them to the others (their lock expires). Jobs waiting for a person are left as
   * they are: their delay is no longer renewed, and they run again elsewhere once it is up.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.worker?.close();
    this.stopping = true;
    this.runner.stop();
    for (const renewal of this.parked.values()) clearInterval(renewal);
    this.parked.clear();
  }

  private async take(job: Job<JobTicket>, token?: string): Promise<void> {
    const row = await this.store.get(job.data.id);
    const reason = row?.status === 'submitted' ? this.runner.heldReason(row.ownerId) : undefined;
    if (row && reason !== undefined && token !== undefined) {
      this.runner.hold(row.id, reason);
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      if (this.runner.heldReason(row.ownerId) !== undefined) return putBack(job, token, HELD_MS);
    }
    return new Promise<void>((resolve, reject) => {
      let parked = false;
      const ran = this.runner.run(job.data, {
        parked: () => {
          if (parked || token === undefined) return;
          parked = true;
          this.park(job, token).then(() => reject(delayedError()), reject);
        },
      });
      ran.then(
        () => (parked ? this.unpark(job) : resolve()),
        (err: unknown) => (parked ? this.unpark(job) : reject(err as Error)),
      );
    });
  }

  private async park(job: Job<JobTicket>, token: string): Promise<void> {
    const leaseMs = this.config.general.async.lock_duration_seconds * 1000;
    await job.moveToDelayed(Date.now() + leaseMs, token);
    const renewal = setInterval(() => {
      job.changeDelay(leaseMs).catch((err: Error) => this.logger.warn(`job ${job.data.id}: ${err.message}`));
    }, leaseMs / 2);
    renewal.unref();
    this.parked.set(job, renewal);
  }

  private unpark(job: Job<JobTicket>): void {
    clearInterval(this.parked.get(job));
    this.parked.delete(job);
    // Ended by this worker's shutdown: the job stays, to run again elsewhere once its delay is up.
    if (this.stopping) return;
    job.remove().catch((err: Error) => this.logger.warn(`job ${job.data.id}: ${err.message}`));
  }
}
