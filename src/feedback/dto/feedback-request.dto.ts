import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsNotEmpty, IsOptional, IsString } from 'class-validator';

/** Longest comment accepted, in characters (Unicode code points). */
export const COMMENT_MAX_LENGTH = 1024;

/** `POST /feedback`. At least one of reaction_type and comment must be non-empty (FeedbackBodyPipe). */
export class FeedbackRequestDto {
  @ApiProperty({
    description:
      'The trace of the answer the feedback is about: the `observability_trace:` line of its stream. ' +
      'Feedback on a trace this server does not know is accepted.',
    minLength: 1,
    example: '01933b2e-1234-5678-9abc-def012345678',
  })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  observability_trace_id!: string;

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
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

/** `GET /feedback?observability_trace_id=…`. */
export class FeedbackQueryDto {
  @ApiProperty({ description: 'Whose feedback to list', minLength: 1 })
  @IsDefined()
  @IsString()
  @IsNotEmpty()
  observability_trace_id!: string;
}
