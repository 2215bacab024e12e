import {
  IsArray,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';

import { CHAT_ROLES, type ChatMessage, type ChatRole, type ContentPart } from '../chat-input';

function isContentPart(part: unknown): boolean {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return false;
  const { type, text } = part as ContentPart;
  if (typeof type !== 'string') return false;
  return type !== 'text' || typeof text === 'string';
}

/** OpenAI message content: a string, a list of parts, or null on an assistant message with tool_calls. */
function IsMessageContent(): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isMessageContent',
      target: target.constructor,
      propertyName: String(propertyName),
      validator: {
        validate(value: unknown, args: ValidationArguments) {
          const message = args.object as ChatMessageInput;
          if (value === null || value === undefined) {
            return (
              message.role === 'assistant' &&
              Array.isArray(message.tool_calls) &&
              message.tool_calls.length > 0
            );
          }
          if (typeof value === 'string') return true;
          return Array.isArray(value) && value.every(isContentPart);
        },
        defaultMessage: (args?: ValidationArguments) =>
          args?.value === null || args?.value === undefined
            ? 'content may be null only on an assistant message with tool_calls'
            : 'content should be a string or a list of content parts ({"type": "text", "text": ...})',
      },
    });
}

/**
 * A chat message as a function's input describes it (validated; a face documents it with its own DTO).
 * Function inputs embed it, and every face that takes messages validates them with it.
 */
export class ChatMessageInput implements ChatMessage {
  @IsDefined()
  @IsIn(CHAT_ROLES as unknown as string[], {
    message: `Input should be ${CHAT_ROLES.map((r) => `'${r}'`).join(', ')}`,
  })
  role!: ChatRole;

  @IsMessageContent()
  content!: string | ContentPart[] | null;

  @IsOptional() @IsString() name?: string;

  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  tool_calls?: Record<string, unknown>[];

  @IsOptional() @IsString() tool_call_id?: string;
}
