import type { ChatMessage, ChatRequest, ContentPart } from '../runtime/chat-input';
import type { InputMessage } from './run-input';

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

/** AG-UI parts as chat parts: text kept; media parts the workflow cannot read are skipped (spec: never fail). */
function contentOf(content: unknown): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return (content as Record<string, unknown>[])
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p): ContentPart => ({ type: 'text', text: p.text as string }));
}

interface ToolCallIn {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/**
 * `RunAgentInput.messages` (the whole history) as the chat request a workflow takes, as `/v1/chat`
 * hands it over; activity and reasoning messages are the client's own and are left out.
 */
export function chatRequestOf(messages: InputMessage[]): ChatRequest {
  const chat: ChatMessage[] = [];
  for (const m of messages) {
    if (!CHAT_ROLES.has(m.role)) continue;
    const message: ChatMessage = { role: m.role as ChatMessage['role'], content: contentOf(m.content) };
    if (m.role === 'tool' && m.toolCallId) message.tool_call_id = m.toolCallId;
    if (m.role === 'assistant' && Array.isArray(m.toolCalls) && m.toolCalls.length > 0) {
      message.tool_calls = (m.toolCalls as ToolCallIn[]).map((c) => ({
        id: String(c.id ?? ''),
        type: 'function',
        function: { name: String(c.function?.name ?? ''), arguments: String(c.function?.arguments ?? '') },
      }));
    }
    chat.push(message);
  }
  return { messages: chat };
}
