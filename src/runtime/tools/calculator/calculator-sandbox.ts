import { extname, join } from 'node:path';
import { SandboxConfig } from '../../../core/workers/sandbox.config';
import { workerFromFile, WorkerSandbox } from '../../../core/workers/worker-sandbox';
import { ToolInputError } from '../json-schema';

export interface SandboxLimits {
  /** Each worker's heap (V8 old generation), in MiB; past it the worker dies, not the server. */
  memoryMb: number;
  /** Expressions waiting for a worker, all callers together; past it a call is refused at once. */
  maxQueue: number;
  /** Worker threads (default 1). */
  workers?: number;
  /** Expressions one caller may have waiting (default: no limit of its own). */
  maxQueuedPerCaller?: number;
}

const WORKER_FILE = join(__dirname, `calculator.worker${extname(__filename)}`);

/**
 * Evaluates calculator expressions in worker threads with a memory limit (mathjs loads there and
 * nowhere else). An expression that outlives its time limit gets its worker terminated (a new one
 * starts for the next), so no expression reaches the server's heap or holds its event loop; callers
 * take turns (see WorkerSandbox), so one caller's expressions do not delay another's.
 */
export class CalculatorSandbox {
  private readonly sandbox: WorkerSandbox<string, string>;

  constructor(limits: SandboxLimits) {
    this.sandbox = new WorkerSandbox({
      start: () =>
        workerFromFile(WORKER_FILE, {
          resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: 16 },
        }),
      workers: limits.workers,
      maxQueue: limits.maxQueue,
      maxQueuedPerCaller: limits.maxQueuedPerCaller,
      failures: {
        busy: 'The calculator is busy; try again shortly',
        stopped: 'The calculator was stopped',
        timeout: (ms) => `The expression took longer than ${ms / 1000}s to evaluate`,
        crashed: (error) =>
          error.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `The expression needs more than the calculator's ${limits.memoryMb} MiB of memory`
            : `The calculator failed: ${error.message}`,
        exited: 'The calculator stopped while evaluating the expression',
      },
      error: (message) => new ToolInputError(message),
    });
  }

  /** The expression's value; `caller` is whose turn it takes (a user, or an anonymous caller's address). */
  evaluate(expression: string, timeoutMs: number, caller = ''): Promise<string> {
    return this.sandbox.run(expression, timeoutMs, caller);
  }

  /** Stops the worker; expressions waiting are refused. */
  close(): Promise<void> {
    return this.sandbox.close();
  }
}

const shared = new Map<string, CalculatorSandbox>();

/** The process's sandbox for a memory limit and `general.sandbox` (tools with the same share its workers). */
export function sharedSandbox(
  memoryMb: number,
  pool: SandboxConfig = new SandboxConfig(),
): CalculatorSandbox {
  const key = JSON.stringify([memoryMb, pool.workers, pool.max_queue, pool.max_queued_per_caller]);
  let sandbox = shared.get(key);
  if (!sandbox) {
    sandbox = new CalculatorSandbox({
      memoryMb,
      workers: pool.workers,
      maxQueue: pool.max_queue,
      maxQueuedPerCaller: pool.max_queued_per_caller,
    });
    shared.set(key, sandbox);
  }
  return sandbox;
}
