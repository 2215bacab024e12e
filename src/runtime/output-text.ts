import { isChatCompletion, resultText } from './chat-completion';

/** The text a streamed output item contributes to the answer (a chat chunk's delta, or the item's text). */
export function chunkText(item: unknown): string {
  if (typeof item === 'string') return item;
  if (
    typeof item === 'object' &&
    item !== null &&
    (item as { object?: unknown }).object === 'chat.completion.chunk'
  ) {
    return (item as { choices: { delta?: { content?: string } }[] }).choices[0]?.delta?.content ?? '';
  }
  return resultText(item);
}

/** A workflow result as the text of its answer (a chat completion's message, or the result's text). */
export function answerText(result: unknown): string {
  if (isChatCompletion(result)) return result.choices[0]?.message?.content ?? '';
  return resultText(result);
}
