import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ExecutionStatusDto } from '../../http-responders/dto/responses.dto';

/** One execution waiting for its owner, with what is needed to answer it in place. */
export class WaitingExecutionDto extends ExecutionStatusDto {
  @ApiProperty() status_url!: string;
  @ApiProperty({ description: 'When it started (ISO 8601)' }) created_at!: string;
  @ApiProperty({ description: 'When its status last changed (ISO 8601)' }) updated_at!: string;
  @ApiPropertyOptional({
    description:
      'When the waiting prompt stops taking an answer (ISO 8601): its `timeout` after it was asked; absent when it has none',
  })
  expires_at?: string;
}

/** `GET /executions`: a page of the caller's waiting executions, newest first. */
export class ExecutionListDto {
  @ApiProperty({ type: [WaitingExecutionDto] }) data!: WaitingExecutionDto[];
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as `cursor` for the next page; null on the last one',
  })
  next_cursor!: string | null;
}
