import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { JOB_STATUSES, type JobStatus } from '../job-record';
import { ApiJsonValueProperty } from '../../http-responders/dto/json-value.decorator';

/** The fields `/v1/workflow/async` reads besides the workflow's own input. */
export class AsyncJobFieldsDto {
  @ApiPropertyOptional({
    description: 'Your id for the job (a new UUID when left out); resubmitting it returns its status',
  })
  @IsOptional()
  @MaxLength(256)
  @MinLength(1)
  @IsString()
  job_id?: string;

  @ApiPropertyOptional({
    description: 'Seconds to wait for the job to end before answering (0..300)',
    default: 0,
  })
  @IsOptional()
  @Max(300)
  @Min(0)
  @IsInt()
  sync_timeout?: number;

  @ApiPropertyOptional({
    description: 'Seconds the output is kept after the job ends (600..86400)',
    default: 3600,
  })
  @IsOptional()
  @Max(86400)
  @Min(600)
  @IsInt()
  expiry_seconds?: number;

  @ApiPropertyOptional({
    description: 'POSTed the final status; its host must be in general.async.webhook_allow_hosts',
  })
  @IsOptional()
  @MaxLength(2048)
  @IsString()
  webhook_url?: string;
}

export const ASYNC_FIELDS = ['job_id', 'sync_timeout', 'expiry_seconds', 'webhook_url'] as const;

export class JobSubmittedDto {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: JOB_STATUSES }) status!: JobStatus;
}

export class JobStatusDto {
  @ApiProperty() job_id!: string;
  @ApiProperty({ enum: JOB_STATUSES }) status!: JobStatus;
  @ApiProperty({ nullable: true, type: String }) error!: string | null;
  @ApiProperty({ description: 'ISO 8601, UTC' }) created_at!: string;
  @ApiProperty({ description: 'ISO 8601, UTC' }) updated_at!: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'updated_at + expiry_seconds once the job ended',
  })
  expires_at!: string | null;
  @ApiJsonValueProperty({ description: 'The workflow output; null until success and after expiry' })
  output!: unknown;
  @ApiPropertyOptional({ description: 'interaction_required / oauth_required: the execution to answer' })
  execution_id?: string;
  @ApiPropertyOptional() interaction_id?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'The prompt waiting for an answer (input_type discriminator)',
  })
  prompt?: unknown;
  @ApiPropertyOptional({ description: 'POST the answer here (the HTTP interactive face)' })
  response_url?: string;
  @ApiPropertyOptional() auth_url?: string;
  @ApiPropertyOptional() oauth_state?: string;
  @ApiPropertyOptional({
    description:
      'submitted: why the job has not started although a slot is free (its owner, or the anonymous callers, run their share of jobs)',
  })
  waiting_reason?: string;
}

export class JobListDto {
  @ApiProperty({ type: [JobStatusDto] }) jobs!: JobStatusDto[];
  @ApiProperty({ nullable: true, type: String, description: 'Pass as `cursor` for the next page' })
  next_cursor!: string | null;
}

export class JobListQueryDto {
  @IsOptional() @IsIn(JOB_STATUSES as unknown as string[]) status?: JobStatus;
  @IsOptional() @IsString() limit?: string;
  @IsOptional() @MaxLength(512) @IsString() cursor?: string;
}
