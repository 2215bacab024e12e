import { Worker, type WorkerOptions } from 'node:worker_threads';
import { WorkerSlot, type SlotJob, type WorkerSlotOptions } from './worker-slot';

export type { WorkerFailure, WorkerFailures } from './worker-slot';

export interface WorkerSandboxOptions extends WorkerSlotOptions {
  /** Worker threads (default 1). A caller runs on all but one of them at most, so others get a turn. */
  workers?: number;
  /** Tasks waiting for a worker, all callers together; past it a task is refused at once. */
  maxQueue: number;
  /** Tasks one caller may have waiting (default: no limit of its own). */
  maxQueuedPerCaller?: number;
}

interface Job<Task, Result> extends SlotJob<Task, Result> {
  caller: string;
}

/**
 * Runs tasks in a small pool of worker threads (see WorkerSlot: time limits, lost workers), so no task
 * reaches the server's heap or holds its event loop. Callers take turns: each has a short line of its
 * own, the next task to run is the oldest of the next caller in turn, and a caller never runs on every
 * worker at once, so one caller's flood does not delay another caller's task.
 */
export class WorkerSandbox<Task, Result> {
  private readonly slots: WorkerSlot<Task, Result>[];
  /** Callers with tasks waiting, in turn order (a caller served moves to the back). */
  private readonly lines = new Map<string, Job<Task, Result>[]>();
  private readonly running = new Map<string, number>();
  private waiting = 0;
  private readonly maxRunningPerCaller: number;

  constructor(private readonly options: WorkerSandboxOptions) {
    const workers = Math.max(1, options.workers ?? 1);
    this.maxRunningPerCaller = Math.max(1, workers - 1);
    this.slots = Array.from(
      { length: workers },
      () => new WorkerSlot<Task, Result>(options, () => this.dispatch()),
    );
  }

  /** Runs `task` for `caller` (a user, or an anonymous caller's address), or refuses it when the lines are full. */
  run(task: Task, timeoutMs: number, caller = ''): Promise<Result> {
    return new Promise((resolve, reject) => {
      const job: Job<Task, Result> = { task, timeoutMs, caller, resolve, reject };
      const line = this.lines.get(caller) ?? [];
      line.push(job);
      this.lines.set(caller, line);
      this.waiting++;
      this.dispatch();
      // Still waiting: it counts against the lines it joined.
      const tooMany =
        this.waiting > this.options.maxQueue || line.length > (this.options.maxQueuedPerCaller ?? Infinity);
      if (line.at(-1) === job && tooMany) {
        line.pop();
        this.waiting--;
        if (line.length === 0) this.lines.delete(caller);
        reject(this.options.error(this.options.failures.busy, 'busy'));
      }
    });
  }

  /** Stops the workers; the tasks running and those waiting are refused. */
  async close(): Promise<void> {
    const stopped = () => this.options.error(this.options.failures.stopped, 'stopped');
    for (const line of this.lines.values()) for (const job of line) job.reject(stopped());
    this.lines.clear();
    this.waiting = 0;
    await Promise.all(this.slots.map((slot) => slot.close()));
  }

  private dispatch(): void {
    for (;;) {
      const slot = this.slots.find((s) => s.idle && s.warm) ?? this.slots.find((s) => s.idle);
      if (!slot) return;
      const caller = [...this.lines.keys()].find(
        (c) => (this.running.get(c) ?? 0) < this.maxRunningPerCaller,
      );
      if (caller === undefined) return;
      const line = this.lines.get(caller)!;
      const job = line.shift()!;
      this.waiting--;
      this.lines.delete(caller);
      if (line.length > 0) this.lines.set(caller, line);
      this.running.set(caller, (this.running.get(caller) ?? 0) + 1);
      const ended = () => {
        const count = (this.running.get(caller) ?? 1) - 1;
        if (count > 0) this.running.set(caller, count);
        else this.running.delete(caller);
      };
      slot.run({
        task: job.task,
        timeoutMs: job.timeoutMs,
        resolve: (value) => {
          ended();
          job.resolve(value);
        },
        reject: (error) => {
          ended();
          job.reject(error);
        },
      });
    }
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
