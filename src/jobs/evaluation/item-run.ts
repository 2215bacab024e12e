import type { Identity } from '../../core/identity/identity';
import { validatePlain } from '../../core/validation/validation-issues';
import type { ExecutionService } from '../../executions/engine/execution.service';
import type { Execution } from '../../executions/model/execution';
import { followExecution } from '../../executions/rendering/follow-execution';
import type { ExecutionEvent, TerminalEvent } from '../../runtime/execution-event';
import type { BuiltFunction } from '../../runtime/function-type';
import type { IntermediateStep, IntermediateStepType } from '../../runtime/intermediate-step';
import type { RequestMetadata } from '../../runtime/workflow-context';
import { textOf } from './evaluators/evaluator';

/** Steps kept per item; a run that makes more keeps its first ones (the file stays readable). */
export const MAX_STEPS_PER_ITEM = 2000;

/** Token and chunk events repeat the text the END steps already carry. */
const DEFAULT_SKIPPED: ReadonlySet<string> = new Set(['LLM_NEW_TOKEN', 'SPAN_CHUNK']);

export interface ItemRunOptions {
  executions: ExecutionService;
  identity: Identity;
  request: RequestMetadata;
  /** The workflow to run; undefined: the served one (the caller's per-user instance when it is per user). */
  workflow?: BuiltFunction;
  /** What converts a question into the workflow's input (the served workflow when `workflow` is unset). */
  shape: BuiltFunction;
  stepFilter?: IntermediateStepType[];
  signal: AbortSignal;
}

export interface ItemRun {
  output: unknown;
  trajectory: IntermediateStep[];
  /** Why the workflow produced no output for this item. */
  error?: string;
}

/** The workflow's input for a question: text becomes a one-message chat; an object is the input itself. */
function inputFor(question: unknown, shape: BuiltFunction): { input: unknown } | { error: string } {
  if (question === null || typeof question !== 'object') {
    return { input: shape.fromChat({ messages: [{ role: 'user', content: textOf(question) }] }) };
  }
  if (shape.input.kind === 'schema') {
    const checked = validatePlain(shape.input.dto, question, ['question']);
    if (!checked.ok) return { error: `the question is not this workflow's input: ${checked.issues[0].msg}` };
  }
  return { input: question };
}

/**
 * Runs one dataset item through the workflow on the ExecutionService, as the job's identity, and
 * collects its intermediate steps. Not interactive: a workflow that asks a person fails that item.
 */
export async function runItem(question: unknown, options: ItemRunOptions): Promise<ItemRun> {
  const { signal } = options;
  signal.throwIfAborted();
  const prepared = inputFor(question, options.shape);
  if ('error' in prepared) return { output: null, trajectory: [], error: prepared.error };
  const keep = options.stepFilter ? new Set<string>(options.stepFilter) : undefined;
  const trajectory: IntermediateStep[] = [];
  let ended!: Promise<TerminalEvent>;
  const collect = (execution: Execution) => {
    let terminal: TerminalEvent | undefined;
    ended = followExecution(execution, (event: ExecutionEvent) => {
      if (event.kind === 'step') {
        const type = event.step.payload.event_type;
        const wanted = keep ? keep.has(type) : !DEFAULT_SKIPPED.has(type);
        if (wanted && trajectory.length < MAX_STEPS_PER_ITEM) trajectory.push(event.step);
      } else if (event.kind === 'completed' || event.kind === 'failed' || event.kind === 'cancelled') {
        terminal = event;
      }
    }).then(() => terminal!);
  };
  const execution = await options.executions.start(prepared.input, options.identity, {
    request: options.request,
    interactive: false,
    streaming: false,
    workflow: options.workflow,
    beforeRun: collect,
  });
  const stop = () => void execution.cancel('evaluation cancelled');
  signal.addEventListener('abort', stop, { once: true });
  if (signal.aborted) stop();
  try {
    const end = await ended;
    signal.throwIfAborted();
    if (end.kind === 'completed') return { output: end.result, trajectory };
    const error = end.kind === 'failed' ? end.error.message : `cancelled: ${end.reason}`;
    return { output: null, trajectory, error };
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
