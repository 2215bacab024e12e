import type { EvaluatorType } from '../../../config/eval.schema';
import { answerText } from '../../../runtime/output-text';

/** NeMo Agent Toolkit's EvalInputItem: one dataset row with what the workflow made of it. */
export interface EvalInputItem {
  id: unknown;
  input_obj: unknown;
  expected_output_obj: unknown;
  output_obj: unknown;
  /** The run's intermediate steps (NAT's IntermediateStep objects), or tool names. */
  trajectory: unknown[];
  /** The tools the row expects (names or steps); undefined when the dataset has no such column. */
  expected_trajectory?: unknown[];
  full_dataset_entry?: unknown;
}

/** NeMo Agent Toolkit's EvalOutputItem; `score` is null and `error` set when the item could not be scored. */
export interface EvalOutputItem {
  id: unknown;
  score: number | boolean | null;
  reasoning: unknown;
  error?: string;
}

/** NeMo Agent Toolkit's EvalOutput: what `<evaluator>_output.json` holds. */
export interface EvalOutput {
  average_score: number | null;
  eval_output_items: EvalOutputItem[];
}

/** A failure to score one item, with a message that is safe to show the caller. */
export class EvaluatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EvaluatorError';
  }
}

/** The evaluator's shared workers are busy: try again later (`POST /evaluate/item` answers 429). */
export class EvaluatorBusyError extends EvaluatorError {
  constructor(message: string) {
    super(message);
    this.name = 'EvaluatorBusyError';
  }
}

export interface Evaluator {
  readonly name: string;
  readonly type: EvaluatorType;
  /**
   * Scores one item; throws (EvaluatorError or the model's error) when it cannot. `caller` is whose
   * turn work in shared workers takes (a user or an anonymous caller's address; a job).
   */
  evaluate(item: EvalInputItem, signal: AbortSignal, caller: string): Promise<EvalOutputItem>;
}

/** The mean of the scores that exist (true counts 1, false 0); null when none does. */
export function averageScore(items: EvalOutputItem[]): number | null {
  const scores = items
    .map((i) => (typeof i.score === 'boolean' ? Number(i.score) : i.score))
    .filter((s): s is number => typeof s === 'number' && Number.isFinite(s));
  return scores.length ? scores.reduce((a, b) => a + b, 0) / scores.length : null;
}

/** An item's value as text: strings as they are, a workflow result as its answer, anything else as JSON. */
export function textOf(value: unknown): string {
  return answerText(value);
}

/** A text cut for a reasoning line. */
export function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
