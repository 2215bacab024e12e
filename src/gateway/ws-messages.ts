import { randomUUID } from 'node:crypto';
import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsString,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import type { ChatUsage } from '../runtime/chat-completion';
import { ChatMessageInput } from '../runtime/functions/chat-message';
import { IfPresent } from '../core/validation/if-present.decorator';

/**
 * NeMo Agent Toolkit's WebSocket message schema (websocket-message-schema.txt). Client messages keep
 * unknown top-level fields (the NAT UI adds its own); only the fields the schema defines are checked.
 */

export const SCHEMA_TYPES = ['chat', 'chat_stream', 'generate', 'generate_stream'] as const;
export type SchemaType = (typeof SCHEMA_TYPES)[number];

/** Chat types hand the workflow the whole history; generate types only the last user text. */
export const isChat = (schema: SchemaType) => schema === 'chat' || schema === 'chat_stream';
/** The `*_stream` types stream the answer; the others send it in one message. */
export const isStreaming = (schema: SchemaType) => schema === 'chat_stream' || schema === 'generate_stream';

export const CLIENT_MESSAGE_TYPES = [
  'user_message',
  'user_interaction_message',
  'auth_message',
  'stop_message',
] as const;

/** The `code` of an `error_message`, as NAT's Error model names them. */
export type WsErrorCode =
  | 'unknown_error'
  | 'workflow_error'
  | 'invalid_message'
  | 'invalid_message_type'
  | 'invalid_user_message_content'
  | 'invalid_data_content';

export class UserMessageContentDto {
  @IsDefined()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageInput)
  messages!: ChatMessageInput[];
}

/** `user_message`: starts the workflow with the conversation so far. */
export class UserMessageDto {
  @IsDefined()
  @IsIn(SCHEMA_TYPES as unknown as string[], {
    message: `schema_type should be one of ${SCHEMA_TYPES.join(', ')}`,
  })
  schema_type!: SchemaType;
  @IfPresent() @IsString() id?: string;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() conversation_id?: string | null;
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => UserMessageContentDto)
  content!: UserMessageContentDto;
}

export class UserInteractionContentDto {
  @IfPresent()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ChatMessageInput)
  messages?: ChatMessageInput[];
  /** Beyond NAT: declines a prompt that has `allow_cancel`. */
  @IfPresent() @IsBoolean() cancel?: boolean;
}

/** `user_interaction_message`: a person's answer to a `system_interaction_message`. */
export class UserInteractionMessageDto {
  @IfPresent() @IsString() id?: string;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() thread_id?: string | null;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() parent_id?: string | null;
  @ValidateIf((_o, v) => v !== undefined && v !== null) @IsString() conversation_id?: string | null;
  @IsDefined()
  @IsObject()
  @ValidateNested()
  @Type(() => UserInteractionContentDto)
  content!: UserInteractionContentDto;
}

export const AUTH_METHODS = ['jwt', 'api_key', 'basic'] as const;

export class AuthPayloadDto {
  @IsDefined()
  @IsIn(AUTH_METHODS as unknown as string[], {
    message: `method should be one of ${AUTH_METHODS.join(', ')}`,
  })
  method!: (typeof AUTH_METHODS)[number];
  @ValidateIf((o: AuthPayloadDto) => o.method !== 'basic') @IsDefined() @IsString() token?: string;
  @ValidateIf((o: AuthPayloadDto) => o.method === 'basic') @IsDefined() @IsString() username?: string;
  @ValidateIf((o: AuthPayloadDto) => o.method === 'basic') @IsDefined() @IsString() password?: string;
}

/** `auth_message`: identifies the connection for the runs that follow. */
export class AuthMessageDto {
  @IfPresent() @IsString() id?: string;
  @IsDefined() @IsObject() @ValidateNested() @Type(() => AuthPayloadDto) payload!: AuthPayloadDto;
}

/** A message the server sends: `type`, `id` and the fields of that type. */
export interface ServerMessage {
  type: string;
  id: string;
  [field: string]: unknown;
}

/** NAT's thread id: the schema has the field; its server always sends this value. */
const THREAD_ID = 'default';

let stampedAt = 0;
let stamp = '';

/** ISO 8601 now; formatted once per millisecond (a stream sends many messages in the same one). */
function now(): string {
  const ms = Date.now();
  if (ms !== stampedAt) {
    stampedAt = ms;
    stamp = new Date(ms).toISOString();
  }
  return stamp;
}

/** The server messages answering one user message: `parent_id` is its id, `conversation_id` echoed. */
export class ReplyMessages {
  constructor(
    readonly parentId: string,
    readonly conversationId: string | null,
  ) {}

  intermediate(step: { id: string; parent_id: string | null; name: string; payload: string }): ServerMessage {
    return {
      type: 'system_intermediate_message',
      id: step.id,
      thread_id: THREAD_ID,
      parent_id: this.parentId,
      intermediate_parent_id: step.parent_id ?? 'default',
      conversation_id: this.conversationId,
      content: { name: step.name, payload: step.payload },
      status: 'in_progress',
      timestamp: now(),
    };
  }

  response(text: string, status: 'in_progress' | 'complete'): ServerMessage {
    return {
      type: 'system_response_message',
      id: randomUUID(),
      thread_id: THREAD_ID,
      parent_id: this.parentId,
      conversation_id: this.conversationId,
      content: { text },
      status,
      timestamp: now(),
    };
  }

  /** A prompt (or an OAuth consent): its `id` is what a reply's `parent_id` names. */
  interaction(id: string, content: unknown): ServerMessage {
    return {
      type: 'system_interaction_message',
      id,
      thread_id: THREAD_ID,
      parent_id: this.parentId,
      conversation_id: this.conversationId,
      content,
      status: 'in_progress',
      timestamp: now(),
    };
  }

  error(code: WsErrorCode, message: string, details: string): ServerMessage {
    return errorMessage(code, message, details, this.conversationId, this.parentId);
  }

  /**
   * The run's trace id, and (an addition to NAT's content, which its clients ignore) the tokens its
   * model calls reported, when any did.
   */
  trace(traceId: string, tokenUsage: ChatUsage | null = null): ServerMessage {
    return {
      type: 'observability_trace_message',
      id: randomUUID(),
      parent_id: this.parentId,
      conversation_id: this.conversationId,
      content: tokenUsage
        ? { observability_trace_id: traceId, token_usage: tokenUsage }
        : { observability_trace_id: traceId },
      timestamp: now(),
    };
  }
}

export function errorMessage(
  code: WsErrorCode,
  message: string,
  details: string,
  conversationId: string | null,
  parentId: string | null = null,
): ServerMessage {
  return {
    type: 'error_message',
    id: randomUUID(),
    thread_id: THREAD_ID,
    parent_id: parentId,
    conversation_id: conversationId,
    content: { code, message, details },
    status: 'in_progress',
    timestamp: now(),
  };
}

/** The answer to an `auth_message`: the user id it now acts as, or why it was refused. */
export function authResponse(
  parentId: string | null,
  outcome: { userId: string | null } | { error: string },
): ServerMessage {
  const base = { type: 'auth_response_message', id: randomUUID(), parent_id: parentId, timestamp: now() };
  if ('error' in outcome) {
    return {
      ...base,
      status: 'error',
      user_id: null,
      payload: { code: 'user_auth_error', message: 'Authentication failed', details: outcome.error },
    };
  }
  return { ...base, status: 'success', user_id: outcome.userId };
}
