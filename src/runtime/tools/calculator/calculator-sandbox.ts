import { extname, join } from 'node:path';
import { workerFromFile, WorkerSandbox } from '../../../core/workers/worker-sandbox';
import { ToolInputError } from '../json-schema';

export interface SandboxLimits {
  /** The worker's heap (V8 old generation), in MiB; past it the worker dies, not the server. */
  memoryMb: number;
  /** Expressions waiting for the worker; past it a call is refused at once. */
  maxQueue: number;
}

const WORKER_FILE = join(__dirname, `calculator.worker${extname(__filename)}`);

/**
 * Evaluates calculator expressions one at a time in a worker thread with a memory limit (mathjs loads
 * there and nowhere else). An expression that outlives its time limit gets its worker terminated (a new
 * one starts for the next), so no expression reaches the server's heap or holds its event loop.
 */
export class CalculatorSandbox {
  private readonly sandbox: WorkerSandbox<string, string>;

  constructor(limits: SandboxLimits) {
    this.sandbox = new WorkerSandbox({
      start: () =>
        workerFromFile(WORKER_FILE, {
          resourceLimits: { maxOldGenerationSizeMb: limits.memoryMb, maxYoungGenerationSizeMb: 16 },
        }),
      maxQueue: limits.maxQueue,
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

  evaluate(expression: string, timeoutMs: number): Promise<string> {
    return this.sandbox.run(expression, timeoutMs);
  }

  /** Stops the worker; expressions waiting are refused. */
  close(): Promise<void> {
    return this.sandbox.close();
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
