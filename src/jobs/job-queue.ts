import type { JobTicket } from './job-record';

/**
 * Where submitted jobs wait and run: in the server (`in_process`) or on `interlude worker` processes
 * through BullMQ (`redis`, `postgres`). The abstract class is the DI token; `job-queue.provider.ts`
 * picks the adapter from `general.async.queue`.
 */
export abstract class JobQueue {
  /** Refuses (429) before a job is recorded when no more can wait. */
  abstract checkCapacity(): void;
  abstract enqueue(ticket: JobTicket): Promise<void>;
  /** The job's row already says `interrupted`: drop it from the queue, stop it where it runs. */
  abstract cancel(id: string): Promise<void>;
}
