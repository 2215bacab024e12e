import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ApiJsonValueProperty,
  ApiJsonValuePropertyOptional,
} from '../../../http-responders/dto/json-value.decorator';
import {
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';

/** Steps (or tool names) one item may carry; the body limit bounds them too. */
export const MAX_TRAJECTORY_STEPS = 10_000;

/** NeMo Agent Toolkit's EvalInputItem, as `POST /evaluate/item` takes it. */
export class EvalInputItemDto {
  @ApiJsonValueProperty({ description: 'The item id, echoed in the result', example: 'q1' })
  @IsDefined()
  id!: unknown;

  @ApiJsonValueProperty({
    description: 'The question the workflow was given',
    example: 'What is the capital of France?',
  })
  @IsDefined()
  input_obj!: unknown;

  @ApiJsonValueProperty({ description: 'The reference answer', example: 'Paris' })
  @IsDefined()
  expected_output_obj!: unknown;

  @ApiJsonValuePropertyOptional({
    description: "The workflow's answer",
    example: 'The capital of France is Paris.',
  })
  @IsOptional()
  output_obj?: unknown;

  @ApiPropertyOptional({
    description: 'Intermediate steps of the run (NAT IntermediateStep objects) or tool names, in order',
    type: 'array',
    items: {},
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TRAJECTORY_STEPS)
  trajectory?: unknown[];

  @ApiPropertyOptional({
    description: 'The tools the run should call (names or steps)',
    type: 'array',
    items: {},
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TRAJECTORY_STEPS)
  expected_trajectory?: unknown[];

  @ApiJsonValuePropertyOptional({
    description: 'The whole dataset row (not read by the built-in evaluators)',
  })
  @IsOptional()
  full_dataset_entry?: unknown;
}

export class EvaluateItemRequestDto {
  @ApiProperty({ type: EvalInputItemDto })
  @IsDefined()
  @ValidateNested()
  @Type(() => EvalInputItemDto)
  item!: EvalInputItemDto;

  @ApiProperty({ description: "An evaluator of the served config's eval.evaluators", example: 'exact' })
  @IsDefined()
  @IsString()
  @MaxLength(256)
  evaluator_name!: string;
}

/** NeMo Agent Toolkit's EvalOutputItem. */
export class EvalOutputItemDto {
  @ApiJsonValueProperty({ description: 'The item id, as sent', example: 'q1' }) id!: unknown;
  @ApiJsonValueProperty({
    description: 'A number (or a boolean); null when the item could not be scored',
    example: 1,
  })
  score!: number | boolean | null;
  @ApiJsonValueProperty({
    description: 'Why the item got that score',
    example: 'the answer equals the expected answer',
  })
  reasoning!: unknown;
}

export class EvaluateItemResponseDto {
  @ApiProperty({ example: true }) success!: boolean;
  @ApiProperty({ type: EvalOutputItemDto, nullable: true }) result!: EvalOutputItemDto | null;
  @ApiProperty({ type: String, nullable: true, example: null }) error!: string | null;
}
