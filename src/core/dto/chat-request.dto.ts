import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  Min,
  ValidateNested,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';

export const CHAT_ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;
export type ChatRole = (typeof CHAT_ROLES)[number];

export interface ContentPart {
  type: string;
  text?: string;
  [key: string]: unknown;
}

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

export class ChatMessageDto {
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

/** An OpenAI chat-completion request. Unknown fields are accepted and passed through to the workflow. */
export class ChatRequestDto {
  @ApiProperty({ type: [ChatMessageDto], minItems: 1 })
  @IsDefined()
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

  @ApiPropertyOptional() @IsOptional() @IsString() model?: string;
  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  frequency_penalty?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'number' } })
  @IsOptional()
  @IsObject()
  logit_bias?: Record<string, number>;
  @ApiPropertyOptional() @IsOptional() @IsBoolean() logprobs?: boolean;
  @ApiPropertyOptional({ minimum: 0, maximum: 20 })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
  top_logprobs?: number;
  @ApiPropertyOptional({ minimum: 1 }) @IsOptional() @IsInt() @Min(1) max_tokens?: number;
  @ApiPropertyOptional({ minimum: 1, maximum: 128 }) @IsOptional() @IsInt() @Min(1) @Max(128) n?: number;
  @ApiPropertyOptional({ minimum: -2, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  presence_penalty?: number;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  response_format?: Record<string, unknown>;
  @ApiPropertyOptional() @IsOptional() @IsInt() seed?: number;
  @ApiPropertyOptional({ enum: ['auto', 'default'] })
  @IsOptional()
  @IsIn(['auto', 'default'])
  service_tier?: string;
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] })
  @IsOptional()
  stop?: string | string[];
  @ApiPropertyOptional({ default: false }) @IsOptional() @IsBoolean() stream?: boolean;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  @IsOptional()
  @IsObject()
  stream_options?: Record<string, unknown>;
  @ApiPropertyOptional({ minimum: 0, maximum: 2 })
  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;
  @ApiPropertyOptional({ minimum: 0, maximum: 1 }) @IsOptional() @IsNumber() @Min(0) @Max(1) top_p?: number;
  @ApiPropertyOptional({ type: 'array', items: { type: 'object', additionalProperties: true } })
  @IsOptional()
  @IsArray()
  tools?: Record<string, unknown>[];
  @ApiPropertyOptional({ oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: true }] })
  @IsOptional()
  tool_choice?: string | Record<string, unknown>;
  @ApiPropertyOptional({ default: true }) @IsOptional() @IsBoolean() parallel_tool_calls?: boolean;
  @ApiPropertyOptional() @IsOptional() @IsString() user?: string;
}

/** The text of a message's content, parts joined. */
export function messageText(content: ChatMessageDto['content']): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .filter((p) => p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text)
    .join('');
}

/** The last user message's text, which single-input workflows receive from a chat request. */
export function lastUserText(messages: ChatMessageDto[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i].role === 'user') return messageText(messages[i].content);
  }
  return messageText(messages[messages.length - 1]?.content ?? '');
}
