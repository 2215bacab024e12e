import { isChatCompletion, resultText } from '../runtime/chat-completion';

function isChatChunk(value: unknown): value is { choices: { delta?: { content?: string } }[] } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { object?: unknown }).object === 'chat.completion.chunk'
  );
}

/**
 * NAT's output envelope: scalars (and chat text) become `{"value": …}`; an object that already has
 * `value` and any other structured value are sent as they are.
 */
export function valueItem(item: unknown): unknown {
  if (isChatChunk(item)) return { value: item.choices[0]?.delta?.content ?? '' };
  if (isChatCompletion(item)) return { value: resultText(item) };
  if (item === null || item === undefined || typeof item !== 'object' || Array.isArray(item)) {
    return { value: item ?? null };
  }
  return item;
}

/** The non-streaming body of a generate route: the workflow output (chat completions stay as they are). */
export function generateBody(result: unknown): unknown {
  if (isChatCompletion(result)) return result;
  return valueItem(result);
}
