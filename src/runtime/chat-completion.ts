import { randomUUID } from 'node:crypto';

/** Rough token count (whitespace-separated words): these workflows have no tokenizer of their own. */
export function countTokens(text: string): number {
  return text.match(/\S+/g)?.length ?? 0;
}

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: { index: number; message: { role: 'assistant'; content: string }; finish_reason: 'stop' }[];
  usage: ChatUsage;
  system_fingerprint: string | null;
  service_tier: string | null;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: { index: number; delta: { role?: 'assistant'; content?: string }; finish_reason: 'stop' | null }[];
  usage?: ChatUsage | null;
}

export function newCompletionId(): string {
  return `chatcmpl-${randomUUID()}`;
}

export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

export function usageFor(promptText: string, completionText: string): ChatUsage {
  const prompt_tokens = countTokens(promptText);
  const completion_tokens = countTokens(completionText);
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

export function chatCompletion(
  content: string,
  opts: { model: string; id?: string; usage: ChatUsage },
): ChatCompletion {
  return {
    id: opts.id ?? newCompletionId(),
    object: 'chat.completion',
    created: unixSeconds(),
    model: opts.model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: opts.usage,
    system_fingerprint: null,
    service_tier: null,
  };
}

export function isChatCompletion(value: unknown): value is ChatCompletion {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { object?: unknown }).object === 'chat.completion' &&
    Array.isArray((value as { choices?: unknown }).choices)
  );
}

/** The assistant text of a workflow result, whatever its shape. */
export function resultText(result: unknown): string {
  if (result === null || result === undefined) return '';
  if (typeof result === 'string') return result;
  if (isChatCompletion(result)) return result.choices[0]?.message?.content ?? '';
  if (typeof result === 'object' && 'value' in result)
    return resultText((result as { value: unknown }).value);
  return typeof result === 'object' ? JSON.stringify(result) : String(result);
}
