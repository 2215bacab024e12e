import type { Worker } from 'node:worker_threads';
import type { WorkerReply, WorkerTask } from './worker-protocol';

/** Why a task got no result (a task that threw in the worker keeps its own message: `failed`). */
export type WorkerFailure = 'busy' | 'stopped' | 'timeout' | 'crashed' | 'exited' | 'failed';

/** How a sandbox's owner words why a task got no result. */
export interface WorkerFailures {
  /** The queue is full: refused at once. */
  busy: string;
  /** `close()` was called while the task waited or ran. */
  stopped: string;
  /** The task outlived its time limit: its worker was terminated. */
  timeout(timeoutMs: number): string;
  /** The worker died of an error (`code` ERR_WORKER_OUT_OF_MEMORY past its heap limit). */
  crashed(error: Error & { code?: string }): string;
  /** The worker exited while running the task. */
  exited: string;
}

export interface WorkerSlotOptions {
  /** Starts a worker that speaks worker-protocol.ts: the first, and a new one after it was lost. */
  start(): Worker;
  failures: WorkerFailures;
  /** The error a task that got no result rejects with, from its message and why. */
  error(message: string, why: WorkerFailure): Error;
}

export interface SlotJob<Task, Result> {
  task: Task;
  timeoutMs: number;
  resolve(value: Result): void;
  reject(error: Error): void;
}

/**
 * One worker thread running one task at a time. A task that outlives its time limit (counted from
 * when the worker is ready) gets the worker terminated, and a worker that dies is dropped: the next
 * task starts a new one. `freed` is called each time the slot can take another task.
 */
export class WorkerSlot<Task, Result> {
  private worker: Worker | undefined;
  private ready = false;
  private current: { job: SlotJob<Task, Result>; id: number; timer?: NodeJS.Timeout } | undefined;
  private nextId = 0;

  constructor(
    private readonly options: WorkerSlotOptions,
    private readonly freed: () => void,
  ) {}

  get idle(): boolean {
    return this.current === undefined;
  }

  /** Has a worker started (so a task need not wait for one to load). */
  get warm(): boolean {
    return this.worker !== undefined;
  }

  run(job: SlotJob<Task, Result>): void {
    this.current = { job, id: ++this.nextId };
    const worker = this.worker ?? this.startWorker();
    // The worker keeps the process alive only while it has work: an idle sandbox never holds exit.
    worker.ref();
    if (this.ready) this.send();
  }

  /** Stops the worker; the running task is refused. */
  async close(): Promise<void> {
    this.take()?.reject(this.options.error(this.options.failures.stopped, 'stopped'));
    await this.stopWorker();
  }

  private send(): void {
    const current = this.current!;
    const { job, id } = current;
    current.timer = setTimeout(() => {
      this.take()?.reject(this.options.error(this.options.failures.timeout(job.timeoutMs), 'timeout'));
      void this.stopWorker();
      this.freed();
    }, job.timeoutMs);
    this.worker!.postMessage({ id, task: job.task } satisfies WorkerTask<Task>);
  }

  /** The running job, which no longer runs: its time limit is cleared. */
  private take(): SlotJob<Task, Result> | undefined {
    const current = this.current;
    this.current = undefined;
    if (!current) return undefined;
    clearTimeout(current.timer);
    this.worker?.unref();
    return current.job;
  }

  private startWorker(): Worker {
    const worker = this.options.start();
    worker.on('message', (reply: WorkerReply<Result>) => {
      if ('ready' in reply) {
        this.ready = true;
        if (this.current && !this.current.timer) this.send();
        return;
      }
      if (reply.id !== this.current?.id) return;
      const job = this.take()!;
      if ('error' in reply) job.reject(this.options.error(reply.error, 'failed'));
      else job.resolve(reply.value);
      this.freed();
    });
    const lost = (message: string, why: WorkerFailure) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      const job = this.take();
      if (!job) return;
      job.reject(this.options.error(message, why));
      this.freed();
    };
    worker.on('error', (error: Error) => lost(this.options.failures.crashed(error), 'crashed'));
    worker.on('exit', () => lost(this.options.failures.exited, 'exited'));
    this.worker = worker;
    this.ready = false;
    return worker;
  }

  private async stopWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    await worker?.terminate();
  }
}
