import { lookup } from 'node:dns/promises';
import type { LlmJudgeConfig } from '../../../config/eval.schema';
import type { OutboundPolicy } from '../../../core/outbound/outbound-policy';
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

/** How the judge's model is reached: the client, and the outbound policy when the model is not the operator's. */
export interface JudgeModel {
  llm: LlmClient;
  /** Set for a model an evaluation file declares: its endpoint must pass `general.outbound`. */
  policy?: OutboundPolicy;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[… cut: ${text.length - max} more characters]` : text;
}

/** Refuses an endpoint the outbound policy refuses (checked before each call: DNS may change). */
async function checkEndpoint(endpoint: string, policy: OutboundPolicy): Promise<void> {
  const url = new URL(endpoint);
  try {
    policy.checkUrl(url);
  } catch (err) {
    throw new EvaluatorError(`the judge model: ${(err as Error).message}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (policy.nameAllowed(host)) return;
  const addresses = await lookup(host, { all: true }).catch((err: Error) => {
    throw new EvaluatorError(`the judge model's host ${host} cannot be resolved: ${err.message}`);
  });
  const refused = addresses.find((a) => !policy.addressAllowed(a.address));
  if (refused) {
    throw new EvaluatorError(
      `the judge model at ${host} (${refused.address}) is a private, loopback or link-local address; allow it in general.outbound.allow_hosts`,
    );
  }
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
      if (model.policy) await checkEndpoint(model.llm.endpoint, model.policy);
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
