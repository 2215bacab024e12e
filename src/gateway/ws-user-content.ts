import type { ChatRequestDto } from '../http-responders/dto/chat-request.dto';
import { lastUserText, messageText, type ChatMessage } from '../runtime/chat-input';
import type { BuiltFunction } from '../runtime/function-type';
import { hasAttachments, attachmentIssues } from '../runtime/attachments';
import { isChat, type SchemaType } from './ws-messages';

/**
 * Why a `user_message`'s conversation cannot start the workflow (the `details` of its
 * `invalid_user_message_content`), or undefined: no user message with text, an image or a file, or an
 * image or file the workflow cannot take (runtime/attachments.ts; located as `content.messages.<i>.content.<j>`).
 */
export function userContentProblem(history: ChatMessage[], workflow: BuiltFunction): string | undefined {
  const said = (m: ChatMessage) =>
    messageText(m.content).trim() !== '' ||
    ((workflow.images ?? workflow.files) !== undefined && hasAttachments([m]));
  if (!history.some((m) => m.role === 'user' && said(m))) {
    return 'No user text content found in messages: add a user message with a text part';
  }
  const issues = attachmentIssues(history, workflow, ['content', 'messages']);
  return issues.length ? issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ') : undefined;
}

/**
 * The chat request a `user_message` starts: chat types hand over the history; generate types the last
 * user message alone (its images and files with it, its text otherwise).
 */
export function wsChatRequest(schema: SchemaType, history: ChatMessage[]): ChatRequestDto {
  if (isChat(schema)) return { messages: history } as ChatRequestDto;
  const last = [...history].reverse().find((m) => m.role === 'user');
  const content = last && hasAttachments([last]) ? last.content : lastUserText(history);
  return { messages: [{ role: 'user', content }] } as ChatRequestDto;
}
