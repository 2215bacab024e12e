import type { ChatMessage, ChatRequest, ContentPart } from '../runtime/chat-input';
import type { InputMessage } from './run-input';

const CHAT_ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

interface PartIn {
  type?: unknown;
  text?: unknown;
  source?: { type?: unknown; value?: unknown; mimeType?: unknown };
  /** A 0.0.5x `binary` part's members. */
  mimeType?: unknown;
  data?: unknown;
  url?: unknown;
  id?: unknown;
}

/** The media part a 0.0.5x `binary` part is (by its type), as the 1.0 client upgrades it. */
function upgraded(part: PartIn): PartIn {
  if (part.type !== 'binary' || typeof part.mimeType !== 'string') return part;
  const mimeType = part.mimeType;
  const kind = ['image', 'audio', 'video'].find((k) => mimeType.startsWith(`${k}/`)) ?? 'document';
  const source =
    typeof part.data === 'string'
      ? { type: 'data', value: part.data, mimeType }
      : typeof part.url === 'string'
        ? { type: 'url', value: part.url, mimeType }
        : { type: 'file', value: part.id, mimeType };
  return { type: kind, source };
}

/**
 * An AG-UI image part as a chat image part: a `data` source as its bytes; any other source (a URL, a
 * file id) as it is, which the chat faces' check refuses (the server fetches nothing a client names).
 */
function imageOf(part: PartIn): ContentPart {
  const { type, value, mimeType } = part.source ?? {};
  if (type === 'data' && typeof value === 'string')
    return { type: 'image_url', image_url: { url: `data:${String(mimeType)};base64,${value}` } };
  return { type: 'image_url', image_url: { url: typeof value === 'string' ? value : '' } };
}

/**
 * AG-UI parts as chat parts: text kept; image parts (0.0.5x `binary` ones too) when the workflow reads
 * images, taken or refused with the chat faces' rules (runtime/attachments.ts), never dropped; other
 * media parts, and images for a workflow that reads none, are skipped (spec: never fail).
 */
function contentOf(content: unknown, images: boolean): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  return (content as PartIn[]).map(upgraded).flatMap((p): ContentPart[] => {
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    return images && p.type === 'image' ? [imageOf(p)] : [];
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
