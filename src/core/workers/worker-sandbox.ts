import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { WorkerReply, WorkerTask } from './worker-protocol';

/** How a sandbox's owner words why a task got no result (a task that threw keeps its own message). */
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

export interface WorkerSandboxOptions {
  /** Starts a worker that speaks worker-protocol.ts: the first, and a new one after it was lost. */
  start(): Worker;
  /** Tasks waiting for the worker; past it a task is refused at once. */
  maxQueue: number;
  failures: WorkerFailures;
  /** The error a task that got no result rejects with, from its message. */
  error(message: string): Error;
}

interface Job<Task, Result> {
  task: Task;
  timeoutMs: number;
  resolve(value: Result): void;
  reject(error: Error): void;
}

/**
 * Runs tasks one at a time in a worker thread. A task that outlives its time limit gets its worker
 * terminated, and a worker that dies is dropped: a new one starts for the next task, so no task reaches
 * the server's heap or holds its event loop.
 */
export class WorkerSandbox<Task, Result> {
  private worker: Worker | undefined;
  /** The worker has loaded: a time limit counts from here, not from the worker's start. */
  private ready = false;
  private current: (Job<Task, Result> & { id: number; timer: NodeJS.Timeout }) | undefined;
  private readonly queue: Job<Task, Result>[] = [];
  private nextId = 0;

  constructor(private readonly options: WorkerSandboxOptions) {}

  run(task: Task, timeoutMs: number): Promise<Result> {
    if (this.queue.length >= this.options.maxQueue) {
      return Promise.reject(this.failed('busy'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ task, timeoutMs, resolve, reject });
      this.runNext();
    });
  }

  /** Stops the worker; the task running and those waiting are refused. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(this.failed('stopped'));
    this.takeCurrent()?.reject(this.failed('stopped'));
    await this.stopWorker();
  }

  private failed(why: 'busy' | 'stopped'): Error {
    return this.options.error(this.options.failures[why]);
  }

  private runNext(): void {
    this.dispatch();
    // The worker keeps the process alive only while it has work: an idle sandbox never holds exit.
    if (this.current || this.queue.length > 0) this.worker?.ref();
    else this.worker?.unref();
  }

  private dispatch(): void {
    if (this.current || this.queue.length === 0) return;
    const worker = this.worker ?? this.startWorker();
    if (!this.ready) return;
    const job = this.queue.shift()!;
    const id = ++this.nextId;
    const timer = setTimeout(() => {
      this.takeCurrent()?.reject(this.options.error(this.options.failures.timeout(job.timeoutMs)));
      void this.stopWorker();
      this.runNext();
    }, job.timeoutMs);
    this.current = { ...job, id, timer };
    worker.postMessage({ id, task: job.task } satisfies WorkerTask<Task>);
  }

  /** The running job, which no longer runs: its time limit is cleared and the next may start. */
  private takeCurrent(): Job<Task, Result> | undefined {
    const job = this.current;
    this.current = undefined;
    if (job) clearTimeout(job.timer);
    return job;
  }

  private startWorker(): Worker {
    const worker = this.options.start();
    worker.on('message', (reply: WorkerReply<Result>) => {
      if ('ready' in reply) {
        this.ready = true;
        return this.runNext();
      }
      if (reply.id !== this.current?.id) return;
      const job = this.takeCurrent()!;
      if ('error' in reply) job.reject(this.options.error(reply.error));
      else job.resolve(reply.value);
      this.runNext();
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      this.takeCurrent()?.reject(this.options.error(why));
      this.runNext();
    };
    worker.on('error', (error: Error) => lost(this.options.failures.crashed(error)));
    worker.on('exit', () => lost(this.options.failures.exited));
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

/**
 * Run from the TypeScript sources (Jest, ts tooling), a worker cannot load a `.ts` file by itself: SWC
 * (a dev dependency, present wherever the sources run) compiles it, and the `.ts` files it imports, as
 * they are required.
 */
const FROM_SOURCES = `
const { readFileSync } = require('node:fs');
const { transformSync } = require('@swc/core');
require.extensions['.ts'] = (module, filename) => {
  const { code } = transformSync(readFileSync(filename, 'utf8'), {
    filename,
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
    module: { type: 'commonjs' },
  });
  module._compile(code, filename);
};
require(require('node:worker_threads').workerData);
`;

/** A worker running the module `file`, compiled or (`.ts`) from the sources. */
export function workerFromFile(file: string, options: WorkerOptions = {}): Worker {
  return file.endsWith('.ts')
    ? new Worker(FROM_SOURCES, { ...options, eval: true, workerData: file })
    : new Worker(file, options);
}
