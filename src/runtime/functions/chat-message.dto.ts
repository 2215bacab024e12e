import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
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
          const message = args.object as ChatMessageDto;
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

/** A chat message on the wire (validated); function input DTOs embed it. */
export class ChatMessageDto implements ChatMessage {
  @ApiProperty({ enum: CHAT_ROLES })
  @IsDefined()
  @IsIn(CHAT_ROLES as unknown as string[], {
    message: `Input should be ${CHAT_ROLES.map((r) => `'${r}'`).join(', ')}`,
  })
  role!: ChatRole;

  @ApiProperty({
    nullable: true,
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object', additionalProperties: true } }],
  })
  @IsMessageContent()
  content!: string | ContentPart[] | null;

  @ApiPropertyOptional() @IsOptional() @IsString() name?: string;

  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  tool_calls?: Record<string, unknown>[];

  @ApiPropertyOptional() @IsOptional() @IsString() tool_call_id?: string;
}
