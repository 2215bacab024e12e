export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** One chat message as workflows receive it. */
export interface ChatMessage {
  role: ChatRole;
  content: string | ContentPart[] | null;
  name?: string;
  tool_calls?: Record<string, unknown>[];
  tool_call_id?: string;
}

/**
 * A chat request as the runtime takes it, whichever face it came through (the faces validate their
 * own wire DTOs and hand this over).
 */
export interface ChatRequest {
  messages: ChatMessage[];
  model?: string;
  stream?: boolean;
  stream_options?: Record<string, unknown>;
  stop?: string | string[];
  temperature?: number;
  tools?: Record<string, unknown>[];
  tool_choice?: string | Record<string, unknown>;
}

/** The text of a message's content, parts joined. */
export function messageText(content: ChatMessage['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('');
}

/** The last user message's text, which single-input workflows receive from a chat request. */
export function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return messageText(messages[i].content);
  }
  return messageText(messages[messages.length - 1]?.content ?? '');
}
