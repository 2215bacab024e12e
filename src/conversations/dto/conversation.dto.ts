import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsNotEmpty, IsObject, IsString, MaxLength } from 'class-validator';

/** Longest title kept, in characters. */
export const TITLE_MAX_LENGTH = 120;
/** Most turns one conversation keeps. */
export const MAX_TURNS = 500;
/** Largest conversation (its turns as JSON), in bytes: past it, 413. */
export const MAX_CONVERSATION_BYTES = 512 * 1024;
/** Longest search text accepted. */
export const QUERY_MAX_LENGTH = 200;
/** Most conversations one listing returns, and the default. */
export const MAX_LIST_LIMIT = 200;
export const DEFAULT_LIST_LIMIT = 50;

/** `PUT /conversations/{id}`: the whole conversation, as the page keeps it. */
export class ConversationWriteDto {
  @ApiProperty({ maxLength: TITLE_MAX_LENGTH, example: 'Q3 sales' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(TITLE_MAX_LENGTH)
  title!: string;

  @ApiProperty({
    description:
      "The page's turns (question, answer, steps, status, trace id…), stored as given and returned " +
      'as stored; `question` and `answer` are what a search looks in. At most 512 KiB in all.',
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    maxItems: MAX_TURNS,
  })
  @IsDefined()
  @IsArray()
  @ArrayMaxSize(MAX_TURNS)
  @IsObject({ each: true })
  turns!: Record<string, unknown>[];
}

/** `PATCH /conversations/{id}`: a new title. */
export class ConversationRenameDto {
  @ApiProperty({ maxLength: TITLE_MAX_LENGTH, example: 'Sales, third quarter' })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  @MaxLength(TITLE_MAX_LENGTH)
  title!: string;
}

export class ConversationSummaryDto {
  @ApiProperty({ example: '3f0c2a4e-8d1b-4c6a-9e2f-7b5d1a0c9e84' }) id!: string;
  @ApiProperty({ example: 'Q3 sales' }) title!: string;
  @ApiProperty({ description: 'ISO 8601, UTC', example: '2026-11-27T12:00:00.000Z' }) updated_at!: string;
}

export class ConversationDto extends ConversationSummaryDto {
  @ApiProperty({ type: 'array', items: { type: 'object', additionalProperties: true } })
  turns!: Record<string, unknown>[];
}

export class ConversationListDto {
  @ApiProperty({ type: [ConversationSummaryDto] }) items!: ConversationSummaryDto[];
}

export class ConversationQueryDto {
  @ApiPropertyOptional({
    description: 'Only conversations whose title, questions or answers contain this text (any case)',
    maxLength: QUERY_MAX_LENGTH,
  })
  q?: string;

  @ApiPropertyOptional({
    description: "Only the conversation a prompt was asked in (a turn's `promptIds` holds it)",
    maxLength: 128,
  })
  interaction_id?: string;

  @ApiPropertyOptional({ minimum: 1, maximum: MAX_LIST_LIMIT, default: DEFAULT_LIST_LIMIT })
  limit?: number;
}
