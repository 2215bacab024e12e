import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import { Optional } from '../../core/validation/optional.decorator';
import type { StepKind } from '../intermediate-step';
import { PromptConfig } from '../prompts';

export const STEP_KINDS: StepKind[] = ['tool', 'function', 'llm', 'custom', 'task', 'span'];

/** `- step:` emits an intermediate step pair (START then END) carrying `input` and `payload`. */
export class EmitStepConfig {
  @IsDefined() @IsString() name!: string;
  @Optional() @IsIn(STEP_KINDS) kind?: StepKind;
  @Optional() input?: unknown;
  /** What the step produced: the END event's output. */
  @Optional() payload?: unknown;
  @Optional() @IsNumber() @Min(0) duration_seconds?: number;
}

/** `- stream:` streams text in chunks of `chunk_words` words, `delay_seconds` apart. */
export class StreamConfig {
  @IsDefined() @IsString() text!: string;
  @Optional() @IsInt() @Min(1) chunk_words?: number;
  @Optional() @IsNumber() @Min(0) delay_seconds?: number;
  /** Repeat the text this many times (for long streams in tests and benchmarks). */
  @Optional() @IsInt() @Min(1) repeat?: number;
}

export class SleepConfig {
  @IsDefined() @IsNumber() @Min(0) seconds!: number;
}

export class FailConfig {
  @IsDefined() @IsString() message!: string;
  /** The error's type name, reported as `details` (NAT reports the Python exception class). */
  @Optional() @IsString() error_type?: string;
}

/** `- prompt:` asks a person (any NAT prompt type) and saves the answer under `save_as`. */
export class ScriptedPromptConfig extends PromptConfig {
  @Optional()
  @IsString()
  @Matches(/^[A-Za-z_][\w-]*$/, { message: 'save_as must be a simple name (letters, digits, _ and -)' })
  save_as?: string;
}

/** `- authenticate:` gets the user's authorization for a provider of `authentication:` (OAuth). */
export class AuthenticateConfig {
  @IsDefined() @IsString() provider!: string;
}

/** `- fetch:` calls a URL (with a provider's bearer token) and saves the JSON or text under `save_as`. */
export class FetchConfig {
  @IsDefined() @IsString() url!: string;
  @Optional() @IsString() provider?: string;
  @Optional() @IsIn(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) method?: string;
  @Optional() body?: unknown;
  @Optional()
  @IsString()
  @Matches(/^[A-Za-z_][\w-]*$/, { message: 'save_as must be a simple name (letters, digits, _ and -)' })
  save_as?: string;
}

export const STEP_ACTIONS = ['step', 'stream', 'sleep', 'fail', 'prompt', 'authenticate', 'fetch'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** One entry of `steps:`: an object with exactly one action key. */
export class ScriptedStepConfig {
  @Optional() @ValidateNested() @Type(() => EmitStepConfig) step?: EmitStepConfig;
  @Optional() @ValidateNested() @Type(() => StreamConfig) stream?: StreamConfig;
  @Optional() @ValidateNested() @Type(() => SleepConfig) sleep?: SleepConfig;
  @Optional() @ValidateNested() @Type(() => FailConfig) fail?: FailConfig;
  @Optional() @ValidateNested() @Type(() => ScriptedPromptConfig) prompt?: ScriptedPromptConfig;
  @Optional() @ValidateNested() @Type(() => AuthenticateConfig) authenticate?: AuthenticateConfig;
  @Optional() @ValidateNested() @Type(() => FetchConfig) fetch?: FetchConfig;
}

export class ScriptedConfig {
  @IsString() _type!: string;
  @Optional() @IsString() description?: string;
  @IsDefined()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ScriptedStepConfig)
  steps!: ScriptedStepConfig[];
  /** The result: `{{input}}` quotes the input text; later issues add answers by name. */
  @Optional() @IsString() output?: string;
  /** The result when a person cancels a prompt that allows it; later steps are skipped. */
  @Optional() @IsString() cancel_output?: string;
  /** Also stream the rendered output as the last output item (default true). */
  @Optional() @IsBoolean() stream_output?: boolean;
}
