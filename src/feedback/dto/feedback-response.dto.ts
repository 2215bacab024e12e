import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FeedbackAddedDto {
  @ApiProperty({
    description:
      "`Added reaction '<reaction>' to call <id>`, `Added comment to call <id>`, or, with both, " +
      "`Added reaction '<reaction>' and comment to call <id>`",
    example: "Added reaction '👍' to call 01933b2e-1234-5678-9abc-def012345678",
  })
  message!: string;
}

export class FeedbackItemDto {
  @ApiProperty({ example: '01933b2e-1234-5678-9abc-def012345678' }) observability_trace_id!: string;
  @ApiProperty({ type: 'string', nullable: true, example: '👍' }) reaction_type!: string | null;
  @ApiProperty({ type: 'string', nullable: true }) comment!: string | null;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: "The sender's user id; null when anonymous",
    example: '7b031fd4-714b-598e-b755-a517d069edc5',
  })
  user_id!: string | null;
  @ApiProperty({ format: 'date-time', example: '2026-11-21T22:30:27.063Z' }) created_at!: string;
}

export class FeedbackListDto {
  @ApiProperty({
    type: [FeedbackItemDto],
    description:
      "One trace's: oldest first. Without observability_trace_id: the caller's own (an admin's: " +
      "everyone's, each with its user_id), newest first, one page; none for an anonymous caller, whose " +
      'feedback cannot be told apart from other anonymous callers’',
  })
  items!: FeedbackItemDto[];

  @ApiPropertyOptional({
    type: 'string',
    nullable: true,
    description:
      'Only without observability_trace_id: pass it as `cursor` for the next page; null on the last page',
  })
  next_cursor?: string | null;
}
