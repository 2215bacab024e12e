import { Worker } from 'node:worker_threads';
import { WorkerSandbox } from '../../../core/workers/worker-sandbox';
import { EvaluatorError, EvaluatorBusyError } from './evaluator';

/**
 * The worker's whole program (it speaks core/workers/worker-protocol.ts). A pattern can backtrack for
 * minutes on a few thousand characters (two adjacent `.*` already take a second on 1,000), so matches
 * run here, where a time limit can stop them.
 */
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, task: { pattern, flags, input } }) => {
  try {
    parentPort.postMessage({ id, value: new RegExp(pattern, flags).test(input) });
  } catch (err) {
    parentPort.postMessage({ id, error: String((err && err.message) || err) });
  }
});
parentPort.postMessage({ ready: true });
`;

interface Match {
  pattern: string;
  flags: string;
  input: string;
}

export interface RegexPoolLimits {
  /** Worker threads (default 1). */
  workers?: number;
  /** Matches waiting for a worker, all callers together. */
  maxQueue: number;
  /** Matches one caller may have waiting (default: no limit of its own). */
  maxQueuedPerCaller?: number;
}

/**
 * Runs regular expressions in worker threads. A match that outlives its time limit gets its worker
 * terminated (a new one starts for the next), so no pattern can hold the server's event loop; callers
 * take turns (see WorkerSandbox). A match refused because the lines are full rejects with
 * EvaluatorBusyError.
 */
export class RegexSandbox {
  private readonly sandbox: WorkerSandbox<Match, boolean>;

  constructor(limits: RegexPoolLimits = { maxQueue: 1024 }) {
    this.sandbox = new WorkerSandbox({
      start: () =>
        new Worker(WORKER_SOURCE, {
          eval: true,
          resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 },
        }),
      ...limits,
      failures: {
        busy: 'too many regular expressions are waiting; try again later',
        stopped: 'the regex sandbox was stopped',
        timeout: (ms) => `the pattern took longer than ${ms} ms to match; it was stopped`,
        crashed: (error) => `the regex sandbox failed: ${error.message}`,
        exited: 'the regex sandbox stopped while matching',
      },
      error: (message, why) =>
        why === 'busy' ? new EvaluatorBusyError(message) : new EvaluatorError(message),
    });
  }

  /** Whether `input` matches; `caller` is whose turn the match takes (a user, an address, a job). */
  test(pattern: string, flags: string, input: string, timeoutMs: number, caller = ''): Promise<boolean> {
    return this.sandbox.run({ pattern, flags, input }, timeoutMs, caller);
  }

  close(): Promise<void> {
    return this.sandbox.close();
  }
}
