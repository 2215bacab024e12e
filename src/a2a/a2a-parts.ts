import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part } from '@a2a-js/sdk';
import { isChatCompletion } from '../runtime/chat-completion';
import { answerText } from '../runtime/output-text';
import type { PromptAnswer } from '../runtime/prompts';

/** Which task (and context) a message belongs to. */
export interface TaskIds {
  taskId: string;
  contextId: string;
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    mediaType: 'text/plain',
    filename: '',
    metadata: undefined,
  };
}

export function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    mediaType: 'application/json',
    filename: '',
    metadata: undefined,
  };
}

export function agentMessage(ids: TaskIds, parts: Part[], metadata?: Record<string, unknown>): Message {
  return {
    messageId: randomUUID(),
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
    ...ids,
  };
}

/** The text parts of a message, joined: what the workflow reads as the user's chat message. */
export function messageText(message: Message): string {
  return message.parts
    .map((p) => (p.content?.$case === 'text' ? p.content.value : undefined))
    .filter((t): t is string => t !== undefined)
    .join('\n');
}

/** The data parts of a message, in order. */
export function messageData(message: Message): unknown[] {
  return message.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value as unknown] : []));
}

/**
 * A workflow result as artifact parts: its answer text, and the value itself as a data part when it
 * is structured (an object or a list that is not a chat completion).
 */
export function resultParts(result: unknown): Part[] {
  const parts = [textPart(answerText(result))];
  if (typeof result === 'object' && result !== null && !isChatCompletion(result))
    parts.push(dataPart(result));
  return parts;
}

/** A streamed output item as an artifact part. */
export function chunkPart(value: unknown): Part {
  return typeof value === 'string' ? textPart(value) : dataPart(value);
}

/** How a person's answer reads in the task's history. */
export function answerSummary(answer: PromptAnswer): string {
  switch (answer.type) {
    case 'text':
      return answer.text;
    case 'checkbox':
      return answer.selected_options.map((o) => o.label).join(', ');
    case 'binary_choice':
    case 'radio':
    case 'dropdown':
      return answer.selected_option.label;
    case 'notification':
      return 'OK';
    case 'cancel':
      return 'Cancelled';
  }
}
