import type { ChatMessage, ChatRequest, ContentPart } from '../runtime/chat-input';
import type { InputMessage } from './run-input';

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

interface PartIn {
  type?: unknown;
  text?: unknown;
  source?: { type?: unknown; value?: unknown; mimeType?: unknown };
}

/** An AG-UI image part as a chat image part: its bytes (or URL, refused later) as an image URL. */
function imageOf(part: PartIn): ContentPart | undefined {
  const { type, value, mimeType } = part.source ?? {};
  if (typeof value !== 'string') return undefined;
  if (type === 'data')
    return { type: 'image_url', image_url: { url: `data:${String(mimeType)};base64,${value}` } };
  if (type === 'url') return { type: 'image_url', image_url: { url: value } };
  return undefined;
}

/**
 * AG-UI parts as chat parts: text kept, image parts too when the workflow reads images (checked with
 * the chat faces' rules, runtime/attachments.ts); other media parts are skipped (spec: never fail).
 */
function contentOf(content: unknown, images: boolean): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return (content as PartIn[]).flatMap((p): ContentPart[] => {
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    const image = images && p.type === 'image' ? imageOf(p) : undefined;
    return image ? [image] : [];
  });
}

interface ToolCallIn {
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/**
 * `RunAgentInput.messages` (the whole history) as the chat request a workflow takes, as `/v1/chat`
 * hands it over; activity and reasoning messages are the client's own and are left out.
 */
export function chatRequestOf(messages: InputMessage[], images = false): ChatRequest {
  const chat: ChatMessage[] = [];
  for (const m of messages) {
    if (!CHAT_ROLES.has(m.role)) continue;
    const message: ChatMessage = {
      role: m.role as ChatMessage['role'],
      content: contentOf(m.content, images),
    };
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
