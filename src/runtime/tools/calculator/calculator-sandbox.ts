import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ToolInputError } from '../json-schema';
import type { CalculatorReply, CalculatorRequest } from './calculator.worker';

export interface SandboxLimits {
  /** The worker's heap (V8 old generation), in MiB; past it the worker dies, not the server. */
  memoryMb: number;
  /** Expressions waiting for the worker; past it a call is refused at once. */
  maxQueue: number;
}

interface Job {
  expression: string;
  timeoutMs: number;
  resolve(value: string): void;
  reject(error: Error): void;
}

const WORKER_FILE = join(__dirname, `calculator.worker${extname(__filename)}`);

/**
 * Run from the TypeScript sources (Jest, ts tooling), a worker cannot load a `.ts` file by itself: SWC
 * (a dev dependency, present wherever the sources run) compiles it as it is required.
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

/**
 * Evaluates calculator expressions one at a time in a worker thread with a memory limit. An expression
 * that outlives its time limit gets its worker terminated (a new one starts for the next), so no
 * expression reaches the server's heap or holds its event loop.
 */
export class CalculatorSandbox {
  private worker: Worker | undefined;
  /** mathjs has loaded in the worker: a time limit counts from here, not from the worker's start. */
  private ready = false;
  private current: (Job & { id: number; timer: NodeJS.Timeout }) | undefined;
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(private readonly limits: SandboxLimits) {}

  evaluate(expression: string, timeoutMs: number): Promise<string> {
    if (this.queue.length >= this.limits.maxQueue) {
      return Promise.reject(new ToolInputError('The calculator is busy; try again shortly'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ expression, timeoutMs, resolve, reject });
      this.runNext();
    });
  }

  /** Stops the worker; expressions waiting are refused. */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new ToolInputError('The calculator was stopped'));
    this.finish(new ToolInputError('The calculator was stopped'));
    await this.stopWorker();
  }

  private runNext(): void {
    this.dispatch();
    // The worker keeps the process alive only while it has work: an idle calculator never holds exit.
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
      const seconds = job.timeoutMs / 1000;
      this.finish(new ToolInputError(`The expression took longer than ${seconds}s to evaluate`));
      void this.stopWorker();
      this.runNext();
    }, job.timeoutMs);
    this.current = { ...job, id, timer };
    worker.postMessage({ id, expression: job.expression } satisfies CalculatorRequest);
  }

  private finish(outcome: Error | string): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    clearTimeout(job.timer);
    if (typeof outcome === 'string') job.resolve(outcome);
    else job.reject(outcome);
  }

  private startWorker(): Worker {
    const options = {
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryMb, maxYoungGenerationSizeMb: 16 },
    };
    const worker = WORKER_FILE.endsWith('.ts')
      ? new Worker(FROM_SOURCES, { ...options, eval: true, workerData: WORKER_FILE })
      : new Worker(WORKER_FILE, options);
    worker.on('message', (reply: CalculatorReply) => {
      if ('ready' in reply) {
        this.ready = true;
        return this.runNext();
      }
      if (reply.id !== this.current?.id) return;
      this.finish('error' in reply ? new ToolInputError(reply.error) : reply.value);
      this.runNext();
    });
    worker.on('error', (err: Error & { code?: string }) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      const why =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? `The expression needs more than the calculator's ${this.limits.memoryMb} MiB of memory`
          : `The calculator failed: ${err.message}`;
      this.finish(new ToolInputError(why));
      this.runNext();
    });
    worker.on('exit', () => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      this.finish(new ToolInputError('The calculator stopped while evaluating the expression'));
      this.runNext();
    });
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

const shared = new Map<number, CalculatorSandbox>();

/** The process's sandbox for a memory limit (tools with the same limit share one worker). */
export function sharedSandbox(memoryMb: number): CalculatorSandbox {
  let sandbox = shared.get(memoryMb);
  if (!sandbox) {
    sandbox = new CalculatorSandbox({ memoryMb, maxQueue: 64 });
    shared.set(memoryMb, sandbox);
  }
  return sandbox;
}
