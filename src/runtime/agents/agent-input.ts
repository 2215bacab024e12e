import { messageText, type ChatMessage, type ChatRequest } from '../chat-input';
import { chatCompletion, usageFor, type ChatCompletion } from '../chat-completion';
import { defaultFilename, typeEssence } from '../files';
import type { ScriptedInput } from '../functions/scripted.function';
import { usageSoFar } from '../llm/llm-call';
import type { ModelMessage, ModelToolCall, ModelUserContent } from '../llm/llm-client';
import type { WorkflowContext } from '../workflow-context';

/** A chat face's request (`/v1/chat*`, `/v1/chat/completions`, the WebSocket): answered with a chat completion. */
export class ChatInput {
  constructor(readonly request: ChatRequest) {}
}

/** The conversation an agent continues: a chat's history, or the generate routes' single message. */
export function conversationOf(input: unknown): ChatMessage[] {
  if (input instanceof ChatInput) return input.request.messages;
  const { input_message, messages } = input as ScriptedInput;
  if (typeof input_message === 'string') return [{ role: 'user', content: input_message }];
  return messages ?? [];
}

/**
 * A user message's content as the model takes it: its text, or its text, image and file parts in order
 * when it carries images or files (the faces checked them against the workflow's limits,
 * runtime/attachments.ts). A file goes as its data and name only (no file_id: the server holds none).
 */
function userContent(content: ChatMessage['content']): ModelUserContent {
  if (!Array.isArray(content) || !content.some((p) => p.type === 'image_url' || p.type === 'file'))
    return messageText(content);
  return content.flatMap((p, i): Exclude<ModelUserContent, string> => {
    if (p.type === 'text' && typeof p.text === 'string') return [{ type: 'text', text: p.text }];
    if (p.type === 'file') {
      const file = p.file as { file_data?: unknown; filename?: unknown } | undefined;
      if (typeof file?.file_data !== 'string') return [];
      const filename =
        typeof file.filename === 'string' ? file.filename : defaultFilename(dataUrlType(file.file_data), i);
      return [{ type: 'file', file: { file_data: file.file_data, filename } }];
    }
    const url = (p.image_url as { url?: unknown } | undefined)?.url;
    return p.type === 'image_url' && typeof url === 'string'
      ? [{ type: 'image_url', image_url: { url } }]
      : [];
  });
}

/** The media type a data: URL names (`data:application/pdf;base64,…` → `application/pdf`). */
function dataUrlType(url: string): string {
  return typeEssence(url.slice(5, Math.max(5, url.indexOf(','))));
}

/** A chat message as the model takes it; tool calls and tool results of the history kept. */
export function modelMessage(message: ChatMessage): ModelMessage {
  const content = messageText(message.content);
  switch (message.role) {
    case 'assistant':
      // The chat DTO checks only that tool calls are objects: they go to the model as the client sent them.
      return message.tool_calls?.length
        ? {
            role: 'assistant',
            content: content || null,
            tool_calls: message.tool_calls as unknown as ModelToolCall[],
          }
        : { role: 'assistant', content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.tool_call_id ?? '', content };
    case 'function':
      return { role: 'function', name: message.name ?? '', content };
    case 'user':
      return { role: 'user', content: userContent(message.content) };
    default:
      return { role: message.role, content };
  }
}

/**
 * The agent's answer as its face expects it: a chat completion whose usage is what the run's model calls
 * reported (estimated when the endpoint reports none) for a chat, the text for the generate routes.
 */
export function agentResult(
  answer: string,
  input: unknown,
  ctx: WorkflowContext,
  /** The configured model's name, reported when the request names none. */
  model: string,
): string | ChatCompletion {
  if (!(input instanceof ChatInput)) return answer;
  const { request } = input;
  const prompt = request.messages.map((m) => messageText(m.content)).join('\n');
  return chatCompletion(answer, {
    model: request.model ?? model,
    usage: usageSoFar(ctx) ?? usageFor(prompt, answer),
  });
}
