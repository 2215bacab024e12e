import type { Job, Processor, Queue } from 'bullmq';
import type { AsyncConfig } from '../config/async.schema';
import { parseDatabaseUrl } from '../config/database-url';
import { checkRedisUrl } from '../redis/redis-url';
import type { JobTicket } from './job-record';

/** What the server and the workers share of BullMQ: one queue, whichever backend holds it. */
export interface BullQueue {
  add(ticket: JobTicket): Promise<void>;
  /** Removes a job that no worker took yet (one under way is left to its worker). */
  remove(id: string): Promise<void>;
  close(): Promise<void>;
}

export interface BullWorker {
  on(event: 'failed', listener: (job: Job<JobTicket> | undefined, err: Error) => void): void;
  on(event: 'error', listener: (err: Error) => void): void;
  close(): Promise<void>;
}

export interface WorkerSettings {
  concurrency: number;
}

/** ioredis options from a `redis://` URL (BullMQ needs `maxRetriesPerRequest: null` on workers). */
export function redisConnection(url: string): Record<string, unknown> {
  const parsed = new URL(url);
  const db = parsed.pathname.replace(/^\//, '');
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port: parsed.port ? Number(parsed.port) : 6379,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(db ? { db: Number(db) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
  };
}

function redisUrlOf(settings: AsyncConfig, env: NodeJS.ProcessEnv): string {
  const url = settings.redis_url ?? env.REDIS_URL;
  if (!url) throw new Error('general.async.queue is redis: set general.async.redis_url or REDIS_URL');
  // The same check as the executions' Redis: a bad URL stops start-up with its reason.
  return checkRedisUrl(url);
}

/** BullMQ's PostgreSQL backend keeps its tables in a schema of their own, named after the prefix. */
function postgresConnection(settings: AsyncConfig, dbUrl: string) {
  const target = parseDatabaseUrl(dbUrl);
  if (target.dialect !== 'postgres') {
    throw new Error('general.async.queue is postgres: general.db_url must be a postgres:// URL');
  }
  return {
    connectionString: target.connectionString,
    schema: `bullmq_${settings.queue_prefix}`,
    migrate: true,
  };
}

// The queued job carries the request (its credentials stripped): removed as soon as it ends, whichever way.
const OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 1 } as const;

/** BullMQ, loaded when a config queues jobs on it: the in-process queue never loads it. */
function bullmq(): typeof import('bullmq') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('bullmq') as typeof import('bullmq');
}

/** The queue a server adds jobs to, on the backend `general.async.queue` names. */
export function openQueue(settings: AsyncConfig, dbUrl: string, env = process.env): BullQueue {
  const { createPostgresBackend, Queue, withBackend } = bullmq();
  const name = settings.queue_name;
  const queue =
    settings.queue === 'postgres'
      ? new (withBackend(createPostgresBackend).Queue)<JobTicket>(name, {
          connection: postgresConnection(settings, dbUrl),
        })
      : new Queue<JobTicket>(name, {
          connection: redisConnection(redisUrlOf(settings, env)),
          prefix: settings.queue_prefix,
        });
  return {
    add: async (ticket) => {
      await (queue as Queue<JobTicket>).add('job', ticket, { ...OPTIONS, jobId: ticket.id });
    },
    remove: async (id) => {
      await (queue as Queue<JobTicket>).remove(id).catch(() => 0);
    },
    close: () => (queue as Queue<JobTicket>).close(),
  };
}

/**
 * Gives a job back to the queue, to be taken again (by any worker) after `delayMs`: the processor
 * returns what this throws.
 */
export async function putBack(job: Job<JobTicket>, token: string, delayMs: number): Promise<never> {
  await job.moveToDelayed(Date.now() + delayMs, token);
  throw delayedError();
}

/** What a processor throws for a job it moved to the delayed set itself. */
export function delayedError(): Error {
  return new (bullmq().DelayedError)();
}

/** A worker taking jobs from that queue; a job whose worker stops renewing its lock goes to another. */
export function openWorker(
  settings: AsyncConfig,
  dbUrl: string,
  processor: Processor<JobTicket>,
  worker: WorkerSettings,
  env = process.env,
): BullWorker {
  const { createPostgresBackend, Worker, withBackend } = bullmq();
  const options = {
    concurrency: worker.concurrency,
    lockDuration: settings.lock_duration_seconds * 1000,
    stalledInterval: settings.stalled_interval_seconds * 1000,
    // At least once: a job whose worker died runs again elsewhere, a few times at most.
    maxStalledCount: 3,
  };
  if (settings.queue === 'postgres') {
    return new (withBackend(createPostgresBackend).Worker)<JobTicket>(settings.queue_name, processor, {
      ...options,
      connection: postgresConnection(settings, dbUrl),
    }) as unknown as BullWorker;
  }
  return new Worker<JobTicket>(settings.queue_name, processor, {
    ...options,
    connection: redisConnection(redisUrlOf(settings, env)),
    prefix: settings.queue_prefix,
  }) as unknown as BullWorker;
}
