import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { JobStatusDto } from './async-job.dto';

/** A job id that is one safe path component (it may name files under the output directory). */
export const SAFE_JOB_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** `POST /evaluate`, as NeMo Agent Toolkit's evaluation endpoint takes it. */
export class EvaluateRequestDto {
  @ApiProperty({ description: 'A .yml/.yaml evaluation config inside general.evaluation.config_dir' })
  @IsDefined()
  @MaxLength(1024)
  @IsString()
  config_file!: string;

  @ApiPropertyOptional({
    description: 'A letter or digit, then letters, digits, ".", "_" and "-" (a new UUID when left out)',
  })
  @IsOptional()
  @Matches(SAFE_JOB_ID, {
    message:
      'job_id must be 1-128 letters, digits, ".", "_" or "-", starting with a letter or digit (one path component)',
  })
  @IsString()
  job_id?: string;

  @ApiPropertyOptional({ default: 1 })
  @IsOptional()
  @Max(100)
  @Min(1)
  @IsInt()
  reps?: number;

  @ApiPropertyOptional({ default: 3600 })
  @IsOptional()
  @Max(86400)
  @Min(600)
  @IsInt()
  expiry_seconds?: number;
}

export class EvaluationJobStatusDto extends JobStatusDto {
  @ApiProperty() config_file!: string;
  @ApiProperty({ nullable: true, type: String }) output_path!: string | null;
}
