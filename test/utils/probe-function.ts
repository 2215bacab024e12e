import { sleep } from '../../src/runtime/text';
import type { WorkflowContext } from '../../src/runtime/workflow-context';
import type { FunctionRegistry } from '../../src/runtime/function-registry';
import { registryWith } from './test-function';

/** What a probe workflow saw: each run's context and how it ended. */
export interface ProbeRun {
  ctx: WorkflowContext;
  input: unknown;
  ended?: 'completed' | 'aborted';
  abortReason?: unknown;
  chunks: number;
}

/**
 * A test workflow that streams a chunk every 10 ms until aborted (or 500 chunks), recording what it
 * received, so tests can assert what the workflow itself observed.
 */
export function probeRegistry(): { registry: FunctionRegistry; runs: ProbeRun[] } {
  const runs: ProbeRun[] = [];
  const registry = registryWith('probe', async (input, ctx) => {
    const run: ProbeRun = { ctx, input, chunks: 0 };
    runs.push(run);
    try {
      for (let i = 0; i < 500; i++) {
        await sleep(10, ctx.signal);
        ctx.emit(`chunk${i} `);
        run.chunks++;
      }
      run.ended = 'completed';
      return 'done';
    } catch (err) {
      run.ended = 'aborted';
      run.abortReason = ctx.signal.reason;
      throw err;
    }
  });
  return { registry, runs };
}
