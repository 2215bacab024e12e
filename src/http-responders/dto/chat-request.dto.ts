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
} from 'class-validator';

import type { ChatRequest } from '../../runtime/chat-input';
import { ChatMessageDto } from './chat-message.dto';

/** An OpenAI chat-completion request. Unknown fields are accepted and passed through to the workflow. */
export class ChatRequestDto implements ChatRequest {
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
