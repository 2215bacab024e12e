import type { TrajectoryConfig } from '../../../config/eval.schema';
import { EvaluatorError, type EvalInputItem, type EvalOutputItem, type Evaluator } from './evaluator';

const MAX_TOOLS = 10_000;

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/**
 * The tool names in a trajectory, in order: a string is a tool's name; a NeMo Agent Toolkit
 * IntermediateStep counts when its `payload.event_type` is TOOL_END (each call ends once).
 */
export function toolsOf(trajectory: readonly unknown[]): string[] {
  const tools: string[] = [];
  for (const entry of trajectory.slice(0, MAX_TOOLS)) {
    if (typeof entry === 'string') {
      tools.push(entry);
      continue;
    }
    const payload = record(record(entry)?.payload);
    if (payload?.event_type === 'TOOL_END' && typeof payload.name === 'string') tools.push(payload.name);
  }
  return tools;
}

/** How many of `expected` appear in `called` in that order (greedy, so each match is the earliest). */
function inOrder(expected: string[], called: string[]): number {
  let at = 0;
  let found = 0;
  for (const tool of expected) {
    const next = called.indexOf(tool, at);
    if (next === -1) continue;
    found++;
    at = next + 1;
  }
  return found;
}

function anyOrder(expected: string[], called: string[]): number {
  const left = new Map<string, number>();
  for (const tool of called) left.set(tool, (left.get(tool) ?? 0) + 1);
  let found = 0;
  for (const tool of expected) {
    const n = left.get(tool) ?? 0;
    if (n > 0) {
      found++;
      left.set(tool, n - 1);
    }
  }
  return found;
}

const list = (tools: string[]) =>
  tools.length === 0
    ? '(none)'
    : tools.length > 50
      ? `${tools.slice(0, 50).join(' → ')} … (${tools.length} in all)`
      : tools.join(' → ');

/**
 * `trajectory`: checks the tools the workflow called against the expected ones. `exact` scores 1 or 0;
 * `in_order` and `any_order` score the share of expected tools found.
 */
export function trajectoryEvaluator(name: string, config: TrajectoryConfig): Evaluator {
  return {
    name,
    type: 'trajectory',
    async evaluate(item: EvalInputItem): Promise<EvalOutputItem> {
      const source = config.expected_tools ?? item.expected_trajectory;
      if (source === undefined) {
        throw new EvaluatorError(
          'no expected tools: set expected_tools on the evaluator, or give the item an expected trajectory',
        );
      }
      const expected = toolsOf(source);
      const called = toolsOf(Array.isArray(item.trajectory) ? item.trajectory : []);
      let score: number;
      if (config.order === 'exact') {
        score = expected.length === called.length && expected.every((t, i) => t === called[i]) ? 1 : 0;
      } else if (expected.length === 0) {
        score = 1;
      } else {
        const found = config.order === 'in_order' ? inOrder(expected, called) : anyOrder(expected, called);
        score = found / expected.length;
      }
      const reasoning = `expected ${list(expected)} (${config.order.replace('_', ' ')}); called ${list(called)}`;
      return { id: item.id, score, reasoning };
    },
  };
}
