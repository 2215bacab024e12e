import { Worker } from 'node:worker_threads';
import { EvaluatorError } from './evaluator';

/**
 * The worker's whole program. A pattern can backtrack for minutes on a few thousand characters (two
 * adjacent `.*` already take a second on 1,000), so matches run here, where a time limit can stop them.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, pattern, flags, input }) => {
  try {
    parentPort.postMessage({ id, matched: new RegExp(pattern, flags).test(input) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
parentPort.postMessage({ ready: true });
`;

type Reply = { ready: true } | { id: number; matched: boolean } | { id: number; error: string };

interface Job {
  pattern: string;
  flags: string;
  input: string;
  timeoutMs: number;
  resolve(matched: boolean): void;
  reject(error: Error): void;
}

/**
 * Runs regular expressions one at a time in a worker thread. A match that outlives its time limit gets
 * the worker terminated (a new one starts for the next), so no pattern can hold the server's event loop.
 */
export class RegexSandbox {
  private worker: Worker | undefined;
  private ready = false;
  private current: (Job & { id: number; timer: NodeJS.Timeout }) | undefined;
  private readonly queue: Job[] = [];
  private nextId = 0;

  constructor(private readonly maxQueue = 1024) {}

  test(pattern: string, flags: string, input: string, timeoutMs: number): Promise<boolean> {
    if (this.queue.length >= this.maxQueue) {
      return Promise.reject(new EvaluatorError('too many regular expressions are waiting; try again later'));
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ pattern, flags, input, timeoutMs, resolve, reject });
      this.runNext();
    });
  }

  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) job.reject(new EvaluatorError('the regex sandbox was stopped'));
    this.finish(new EvaluatorError('the regex sandbox was stopped'));
    await this.stopWorker();
  }

  private runNext(): void {
    this.dispatch();
    // An idle sandbox never holds the process open.
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
      this.finish(
        new EvaluatorError(`the pattern took longer than ${job.timeoutMs} ms to match; it was stopped`),
      );
      void this.stopWorker();
      this.runNext();
    }, job.timeoutMs);
    this.current = { ...job, id, timer };
    worker.postMessage({ id, pattern: job.pattern, flags: job.flags, input: job.input });
  }

  private finish(outcome: Error | boolean): void {
    const job = this.current;
    if (!job) return;
    this.current = undefined;
    clearTimeout(job.timer);
    if (typeof outcome === 'boolean') job.resolve(outcome);
    else job.reject(outcome);
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
    });
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        this.ready = true;
        return this.runNext();
      }
      if (reply.id !== this.current?.id) return;
      this.finish('error' in reply ? new EvaluatorError(reply.error) : reply.matched);
      this.runNext();
    });
    const lost = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.ready = false;
      this.finish(new EvaluatorError(why));
      this.runNext();
    };
    worker.on('error', (err: Error) => lost(`the regex sandbox failed: ${err.message}`));
    worker.on('exit', () => lost('the regex sandbox stopped while matching'));
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
