import { AppError } from '../core/errors/app-error';
import { answerFromText } from '../runtime/text-answer';
import { AnswerMismatch, type Prompt } from '../runtime/prompts';

/**
 * A `function_call_output.output` as the answer to a NAT prompt: the JSON of NAT's answer (an object
 * with `type` or `input_type`, as `POST …/response` takes it), or text: free text for a text prompt, an
 * option's id, value or label for a choice (several comma-separated for a checkbox).
 */
export function answerOf(prompt: Prompt, output: string, index: number): Record<string, unknown> {
  const nat = natAnswer(output);
  if (nat) return nat;
  try {
    return answerFromText(prompt, output);
  } catch (err) {
    if (!(err instanceof AnswerMismatch)) throw err;
    throw AppError.validation([
      { type: 'value_error', loc: ['body', 'input', index, 'output'], msg: err.message, input: output },
    ]);
  }
}

function natAnswer(output: string): Record<string, unknown> | undefined {
  if (!output.trimStart().startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(output) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    const answer = parsed as Record<string, unknown>;
    return typeof answer.type === 'string' || typeof answer.input_type === 'string' ? answer : undefined;
  } catch {
    return undefined;
  }
}
