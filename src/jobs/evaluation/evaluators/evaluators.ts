import {
  ContainsConfig,
  ExactMatchConfig,
  LlmJudgeConfig,
  RegexConfig,
  TrajectoryConfig,
  type EvaluatorConfig,
} from '../../../config/eval.schema';
import { mapBounded } from '../bounded';
import {
  averageScore,
  type EvalInputItem,
  type EvalOutput,
  type EvalOutputItem,
  type Evaluator,
} from './evaluator';
import { llmJudgeEvaluator, type JudgeModel } from './llm-judge.evaluator';
import { regexEvaluator } from './regex.evaluator';
import type { RegexSandbox } from './regex-sandbox';
import { containsEvaluator, exactMatchEvaluator } from './text-match.evaluators';
import { trajectoryEvaluator } from './trajectory.evaluator';

export interface EvaluatorDeps {
  /** The judge model for an `llms:` name (the names were checked when the config loaded). */
  judge(llmName: string): JudgeModel;
  regex: RegexSandbox;
}

export function buildEvaluator(name: string, config: EvaluatorConfig, deps: EvaluatorDeps): Evaluator {
  if (config instanceof ExactMatchConfig) return exactMatchEvaluator(name, config);
  if (config instanceof ContainsConfig) return containsEvaluator(name, config);
  if (config instanceof RegexConfig) return regexEvaluator(name, config, deps.regex);
  if (config instanceof TrajectoryConfig) return trajectoryEvaluator(name, config);
  if (config instanceof LlmJudgeConfig) return llmJudgeEvaluator(name, config, deps.judge(config.llm_name));
  throw new Error(`no evaluator for ${JSON.stringify(config)}`);
}

export function buildEvaluators(
  configs: Map<string, EvaluatorConfig>,
  deps: EvaluatorDeps,
): Map<string, Evaluator> {
  return new Map([...configs].map(([name, config]) => [name, buildEvaluator(name, config, deps)]));
}

/** One item's score, or its error (NAT reports a failed item with `error` and no score). */
export async function scoreItem(
  evaluator: Evaluator,
  item: EvalInputItem,
  signal: AbortSignal,
  caller: string,
): Promise<EvalOutputItem> {
  try {
    return await evaluator.evaluate(item, signal, caller);
  } catch (err) {
    signal.throwIfAborted();
    return { id: item.id, score: null, reasoning: null, error: (err as Error).message };
  }
}

/** Every item through one evaluator, `concurrency` at a time; the average over the items it could score. */
export async function evaluateItems(
  evaluator: Evaluator,
  items: EvalInputItem[],
  signal: AbortSignal,
  concurrency: number,
  caller: string,
): Promise<EvalOutput> {
  const outputs = await mapBounded(items, concurrency, (item) => scoreItem(evaluator, item, signal, caller));
  return { average_score: averageScore(outputs), eval_output_items: outputs };
}
