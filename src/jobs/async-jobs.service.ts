import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode, internalErrorMessage } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';
import { withoutCredentials, type RequestMetadata } from '../core/request-metadata';
import { JobEvents } from './job-events';
import { isFinal, type Job, type JobKind, type JobStatus } from './job-record';
import { JobQueue } from './job-queue';
import { InvalidCursor, JobStore, type JobPage, type NewJob } from './job.store';
import { JobFinished } from './job-finished';

/** How often a request holding a `sync_timeout` looks at a job another process runs. */
const POLL_MS = 250;

export const DEFAULT_EXPIRY_SECONDS = 3600;
export const MAX_LIST_LIMIT = 100;

export interface Submitted {
  job: Job;
  /** False when the job_id already existed: nothing new runs. */
  created: boolean;
}

export const jobNotFound = (jobId: string) => new AppError(ErrorCode.NotFound, `Job ${jobId} not found`);

/**
 * Async jobs for every route that takes them (`/v1/workflow/async`, `/generate/async`, `/evaluate`):
 * records them, hands them to the queue, reads them back for their owner only.
 */
@Injectable()
export class AsyncJobsService {
  constructor(
    private readonly store: JobStore,
    private readonly queue: JobQueue,
    private readonly events: JobEvents,
    private readonly bus: EventEmitter2,
    private readonly config: ServerConfig,
  ) {}

  /** Records the job (or finds the caller's job with that job_id) and queues it if new. */
  async submit(
    identity: Identity,
    job: Omit<NewJob, 'identity' | 'jobId'> & { jobId?: string },
    request: RequestMetadata,
  ): Promise<Submitted> {
    const jobId = job.jobId ?? randomUUID();
    const existing = await this.store.find(job.kind, identity, jobId);
    if (existing) return { job: existing, created: false };
    this.queue.checkCapacity();
    const limit = this.config.general.async.max_active_jobs_per_user;
    if ((await this.store.countUnfinished(identity)) >= limit) {
      throw new AppError(
        ErrorCode.TooManyWaiting,
        `You have ${limit} unfinished async jobs (general.async.max_active_jobs_per_user); try again later`,
        { headers: { 'Retry-After': '30' } },
      );
    }
    const { job: row, created } = await this.store.insertOrGet({ ...job, jobId, identity });
    if (created) {
      try {
        await this.queue.enqueue({ id: row.id, kind: row.kind, request: portable(request) });
      } catch (err) {
        // The queue's error names its host and port: the log has it, the job's status does not.
        new Logger('Jobs').error(`Job ${row.jobId} could not be queued: ${(err as Error).message}`);
        await this.store.finish(row.id, { status: 'failure', error: internalErrorMessage(undefined) });
        throw err;
      }
    }
    return { job: row, created };
  }

  /**
   * The job's status after at most `seconds` (sooner when it ends, or when `signal` fires: the client
   * left). Other requests are never held up.
   */
  async waitForEnd(job: Job, seconds: number, signal?: AbortSignal): Promise<Job> {
    const deadline = Date.now() + seconds * 1000;
    let current = job;
    while (!isFinal(current.status) && !signal?.aborted) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      await this.events.next(current.id, Math.min(left, POLL_MS));
      current = (await this.store.get(current.id)) ?? current;
    }
    return current;
  }

  async get(kind: JobKind, identity: Identity, jobId: string): Promise<Job> {
    const job = await this.store.find(kind, identity, jobId);
    if (!job) throw jobNotFound(jobId);
    return job;
  }

  async list(
    kind: JobKind,
    identity: Identity,
    query: { status?: JobStatus; limit?: number; cursor?: string },
  ): Promise<JobPage> {
    try {
      return await this.store.list(kind, identity, { ...query, limit: query.limit ?? 20 });
    } catch (err) {
      if (err instanceof InvalidCursor) {
        throw AppError.validation([
          { type: 'value_error', loc: ['query', 'cursor'], msg: err.message, input: query.cursor },
        ]);
      }
      throw err;
    }
  }

  /** Stops a submitted or running job: it ends `interrupted` with error "cancelled". */
  async cancel(kind: JobKind, identity: Identity, jobId: string): Promise<Job> {
    const job = await this.get(kind, identity, jobId);
    if (isFinal(job.status)) {
      throw new AppError(ErrorCode.Conflict, `Job ${jobId} has already ended (${job.status})`);
    }
    const ended = await this.store.finish(job.id, { status: 'interrupted', error: 'cancelled' });
    if (!ended) return this.get(kind, identity, jobId);
    await this.queue.cancel(job.id);
    this.events.changed(job.id);
    this.bus.emit(JobFinished.event, new JobFinished(ended));
    return ended;
  }

  get settings() {
    return this.config.general.async;
  }
}

/**
 * The request as a job keeps it until it runs: it may wait in Redis or PostgreSQL and travel to a
 * worker as JSON, so it holds no credentials; the job runs as the identity resolved at submission.
 */
function portable(request: RequestMetadata): RequestMetadata {
  return JSON.parse(JSON.stringify(withoutCredentials(request))) as RequestMetadata;
}
