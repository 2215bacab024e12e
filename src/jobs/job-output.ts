import { isChatCompletion, resultText } from '../runtime/chat-completion';

/**
 * A finished workflow's `output`, as NeMo Agent Toolkit's async jobs show it: the generate body
 * (scalars and chat completions as `{"value": …}`, structured results as they are).
 */
export function jobOutput(result: unknown): unknown {
  if (isChatCompletion(result)) return { value: resultText(result) };
  if (result === null || result === undefined || typeof result !== 'object' || Array.isArray(result)) {
    return { value: result ?? null };
  }
  return result;
}
