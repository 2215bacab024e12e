import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/** Longest comment accepted, in characters (Unicode code points). */
export const COMMENT_MAX_LENGTH = 1024;
/** Longest reaction accepted (an emoji or a short word; a whole sequence of emoji fits). */
export const REACTION_MAX_LENGTH = 64;
/** Longest trace id accepted; the server's own are 32 hex digits or a UUID. */
export const TRACE_ID_MAX_LENGTH = 128;

/** `POST /feedback`. At least one of reaction_type and comment must be non-empty (FeedbackBodyPipe). */
export class FeedbackRequestDto {
  @ApiProperty({
    description:
      'The trace of the answer the feedback is about: the `observability_trace:` line of its stream. ' +
      'Feedback on a trace this server does not know, or produced for an anonymous caller, is accepted ' +
      'from anyone; on a trace produced for an identified user, only from that user or an admin ' +
      '(others get 404).',
    minLength: 1,
    maxLength: TRACE_ID_MAX_LENGTH,
    example: '01933b2e-1234-5678-9abc-def012345678',
  })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  observability_trace_id!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: REACTION_MAX_LENGTH,
    description: 'A reaction, often an emoji',
    example: '👍',
  })
  @IsOptional()
  @IsString()
  reaction_type?: string | null;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    maxLength: COMMENT_MAX_LENGTH,
    example: 'Exactly what I needed',
  })
  @IsOptional()
  @IsString()
  comment?: string | null;
}

/** Most feedback items one page of `GET /feedback` (without a trace id) holds, and the default. */
export const MAX_PAGE_LIMIT = 100;
export const DEFAULT_PAGE_LIMIT = 20;

/**
 * `GET /feedback[?observability_trace_id=…][&user_id=…][&limit=…&cursor=…]`: one trace's feedback, or
 * (without a trace id) the caller's own, newest first, a page at a time.
 */
export class FeedbackQueryDto {
  @ApiPropertyOptional({
    description:
      'The trace whose feedback to list (all of it, oldest first, no paging). Without it: your own ' +
      'feedback on every trace, newest first, a page at a time (an admin: everyone’s).',
    minLength: 1,
    maxLength: TRACE_ID_MAX_LENGTH,
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  observability_trace_id?: string;

  @ApiPropertyOptional({
    description:
      "Only this sender's feedback. Callers see only their own feedback anyway; an admin " +
      '(`general.auth.admin`) sees everyone’s and narrows it with this.',
    maxLength: TRACE_ID_MAX_LENGTH,
  })
  @IsOptional()
  @IsString()
  user_id?: string;

  @ApiPropertyOptional({
    description: `Items per page (only without observability_trace_id); default ${DEFAULT_PAGE_LIMIT}`,
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_LIMIT,
  })
  @IsOptional()
  @IsString()
  limit?: string;

  @ApiPropertyOptional({
    description: 'The `next_cursor` of the previous page (only without observability_trace_id)',
  })
  @IsOptional()
  @IsString()
  cursor?: string;
}
