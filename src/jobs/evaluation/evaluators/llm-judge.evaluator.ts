import type { LlmJudgeConfig } from '../../../config/eval.schema';
import type { LlmClient } from '../../../runtime/llm/llm-client';
import { clip, EvaluatorError, textOf, type EvalInputItem, type Evaluator } from './evaluator';

export const DEFAULT_RUBRIC =
  'Score 1 when the answer gives the same facts as the reference answer, 0 when it contradicts it or ' +
  'misses its point, and a value in between for a partly correct or incomplete answer. Wording, ' +
  'length and style do not matter.';

const INSTRUCTIONS =
  'You grade answers. Compare the answer to grade with the reference answer for the question, ' +
  'following the rubric. Reply with one JSON object and nothing else: ' +
  '{"score": <a number from 0 to 1>, "reasoning": "<one or two sentences>"}.';

/**
 * The judge's model. One an evaluation file declares is built to pass `general.outbound` on every
 * connection (buildLlm with the served policy); the served config's are the operator's and trusted.
 */
export interface JudgeModel {
  llm: LlmClient;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut: ${text.length - max} more characters]` : text;
}

/** The judge's verdict: the first `{` to the last `}` of its reply, read as JSON (no pattern runs on model text). */
export function parseVerdict(reply: string): { score: number; reasoning: string } {
  const start = reply.indexOf('{');
  const end = reply.lastIndexOf('}');
  let verdict: unknown;
  try {
    verdict = start >= 0 && end > start ? JSON.parse(reply.slice(start, end + 1)) : undefined;
  } catch {
    verdict = undefined;
  }
  const { score, reasoning } = (verdict ?? {}) as { score?: unknown; reasoning?: unknown };
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) {
    throw new EvaluatorError(
      `the judge did not answer with {"score": 0..1, "reasoning": "…"}; it said: ${clip(reply, 300)}`,
    );
  }
  return { score, reasoning: typeof reasoning === 'string' ? reasoning : '' };
}

/** `llm_judge`: a configured model scores the answer against the reference with a rubric. */
export function llmJudgeEvaluator(name: string, config: LlmJudgeConfig, model: JudgeModel): Evaluator {
  const rubric = config.rubric ?? DEFAULT_RUBRIC;
  return {
    name,
    type: 'llm_judge',
    async evaluate(item: EvalInputItem, signal: AbortSignal) {
      const max = config.max_chars;
      const response = await model.llm.complete({
        messages: [
          { role: 'system', content: `${INSTRUCTIONS}\n\nRubric: ${rubric}` },
          {
            role: 'user',
            content:
              `Question:\n${cut(textOf(item.input_obj), max)}\n\n` +
              `Reference answer:\n${cut(textOf(item.expected_output_obj), max)}\n\n` +
              `Answer to grade:\n${cut(textOf(item.output_obj), max)}`,
          },
        ],
        stream: false,
        signal,
      });
      const verdict = parseVerdict(response.content);
      return { id: item.id, score: verdict.score, reasoning: verdict.reasoning };
    },
  };
}
