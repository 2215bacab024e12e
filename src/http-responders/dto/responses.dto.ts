import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ApiJsonValueProperty, ApiJsonValuePropertyOptional } from './json-value.decorator';

export class ValidationIssueDto {
  @ApiProperty({ example: 'missing' }) type!: string;
  @ApiProperty({
    type: 'array',
    items: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    example: ['body', 'messages'],
  })
  loc!: (string | number)[];
  @ApiProperty({ example: 'Field required' }) msg!: string;
  @ApiJsonValueProperty({ description: 'The offending input, as sent (null when it is missing)' })
  input!: unknown;
  @ApiPropertyOptional({ type: 'object', additionalProperties: true }) ctx?: Record<string, unknown>;
}

/** 422 for a body that does not match the schema (FastAPI's shape). */
export class ValidationErrorBodyDto {
  @ApiProperty({ type: [ValidationIssueDto] }) detail!: ValidationIssueDto[];
}

/** 422 when the workflow failed (NeMo Agent Toolkit's Error shape). */
export class ErrorBodyDto {
  @ApiProperty({ example: 'workflow_error' }) code!: string;
  @ApiProperty({ example: 'The tool returned an error' }) message!: string;
  @ApiProperty({ example: 'ValueError', description: 'The error type' }) details!: string;
}

export class DetailBodyDto {
  @ApiProperty({ example: 'Not Found' }) detail!: string;
}

export class GenerateResponseDto {
  @ApiJsonValueProperty({ description: 'The workflow output (scalar outputs are wrapped as value)' })
  value!: unknown;
}

export class HealthDto {
  @ApiProperty({ example: 'healthy' }) status!: string;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'unavailable'] }) status!: string;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { executions: 'ok' } })
  checks!: Record<string, string>;
}

export class ChatCompletionMessageDto {
  @ApiProperty({ example: 'assistant' }) role!: string;
  @ApiProperty() content!: string;
}

export class ChatCompletionChoiceDto {
  @ApiProperty() index!: number;
  @ApiProperty({ type: ChatCompletionMessageDto }) message!: ChatCompletionMessageDto;
  @ApiProperty({ example: 'stop' }) finish_reason!: string;
}

export class ChatUsageDto {
  @ApiProperty() prompt_tokens!: number;
  @ApiProperty() completion_tokens!: number;
  @ApiProperty() total_tokens!: number;
}

export class ChatCompletionDto {
  @ApiProperty({ example: 'chatcmpl-5f0c9a0e-1d2b-4c7e-9a31-0c1b7f2e8d44' }) id!: string;
  @ApiProperty({ enum: ['chat.completion'] }) object!: string;
  @ApiProperty({ description: 'Unix seconds' }) created!: number;
  @ApiProperty() model!: string;
  @ApiProperty({ type: [ChatCompletionChoiceDto] }) choices!: ChatCompletionChoiceDto[];
  @ApiProperty({ type: ChatUsageDto }) usage!: ChatUsageDto;
}

export class OpenAiErrorDetailDto {
  @ApiProperty() message!: string;
  @ApiProperty({ example: 'invalid_request_error' }) type!: string;
  @ApiProperty({ nullable: true, type: 'string' }) param!: string | null;
  @ApiProperty({ nullable: true, type: 'string' }) code!: string | null;
}

export class OpenAiErrorDto {
  @ApiProperty({ type: OpenAiErrorDetailDto }) error!: OpenAiErrorDetailDto;
}

/** Declares the `Observability-Trace-Id` header every answer of a route that runs the workflow carries. */
export const TRACE_HEADER_DOC = {
  headers: {
    'Observability-Trace-Id': {
      description: 'The trace id of this run (give it to /feedback); the request header of that name is kept',
      schema: { type: 'string' as const },
    },
  },
};

export const SSE_RESPONSE = {
  description: 'Server-Sent Events: `data:` output frames and `intermediate_data:` step lines',
  content: { 'text/event-stream': { schema: { type: 'string' as const } } },
};

export class ExecutionStatusDto {
  @ApiProperty() execution_id!: string;
  @ApiProperty({ enum: ['running', 'interaction_required', 'oauth_required', 'completed', 'failed'] })
  status!: string;
  @ApiPropertyOptional() interaction_id?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The prompt (input_type discriminator)',
  })
  prompt?: Record<string, unknown>;
  @ApiPropertyOptional() response_url?: string;
  @ApiPropertyOptional() auth_url?: string;
  @ApiPropertyOptional() oauth_state?: string;
  @ApiJsonValuePropertyOptional({ description: 'The result, in the format of the route that started it' })
  result?: unknown;
  @ApiPropertyOptional() error?: string;
}

/** 202: the request paused for a person (or an OAuth authorization). */
export class PausedExecutionDto extends ExecutionStatusDto {
  @ApiProperty() status_url!: string;
}
