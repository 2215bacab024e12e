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
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { StepKind } from '../intermediate-step';
import { PromptConfig } from '../prompts';

export const STEP_KINDS: StepKind[] = ['tool', 'function', 'llm', 'custom', 'task', 'span'];

/** `- step:` emits an intermediate step pair (START then END) carrying `input` and `payload`. */
export class EmitStepConfig {
  @IsDefined() @IsString() name!: string;
  @IfPresent() @IsIn(STEP_KINDS) kind?: StepKind;
  @IfPresent() input?: unknown;
  /** What the step produced: the END event's output. */
  @IfPresent() payload?: unknown;
  @IfPresent() @IsNumber() @Min(0) duration_seconds?: number;
}

/** `- stream:` streams text in chunks of `chunk_words` words, `delay_seconds` apart. */
export class StreamConfig {
  @IsDefined() @IsString() text!: string;
  @IfPresent() @IsInt() @Min(1) chunk_words?: number;
  @IfPresent() @IsNumber() @Min(0) delay_seconds?: number;
  /** Repeat the text this many times (for long streams in tests and benchmarks). */
  @IfPresent() @IsInt() @Min(1) repeat?: number;
}

export class SleepConfig {
  @IsDefined() @IsNumber() @Min(0) seconds!: number;
}

export class FailConfig {
  @IsDefined() @IsString() message!: string;
  /** The error's type name, reported as `details` (NAT reports the Python exception class). */
  @IfPresent() @IsString() error_type?: string;
}

/** `- prompt:` asks a person (any NAT prompt type) and saves the answer under `save_as`. */
export class ScriptedPromptConfig extends PromptConfig {
  @IfPresent()
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
  @IfPresent() @IsString() provider?: string;
  @IfPresent() @IsIn(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) method?: string;
  @IfPresent() body?: unknown;
  @IfPresent()
  @IsString()
  @Matches(/^[A-Za-z_][\w-]*$/, { message: 'save_as must be a simple name (letters, digits, _ and -)' })
  save_as?: string;
}

export const STEP_ACTIONS = ['step', 'stream', 'sleep', 'fail', 'prompt', 'authenticate', 'fetch'] as const;
export type StepAction = (typeof STEP_ACTIONS)[number];

/** One entry of `steps:`: an object with exactly one action key. */
export class ScriptedStepConfig {
  @IfPresent() @ValidateNested() @Type(() => EmitStepConfig) step?: EmitStepConfig;
  @IfPresent() @ValidateNested() @Type(() => StreamConfig) stream?: StreamConfig;
  @IfPresent() @ValidateNested() @Type(() => SleepConfig) sleep?: SleepConfig;
  @IfPresent() @ValidateNested() @Type(() => FailConfig) fail?: FailConfig;
  @IfPresent() @ValidateNested() @Type(() => ScriptedPromptConfig) prompt?: ScriptedPromptConfig;
  @IfPresent() @ValidateNested() @Type(() => AuthenticateConfig) authenticate?: AuthenticateConfig;
  @IfPresent() @ValidateNested() @Type(() => FetchConfig) fetch?: FetchConfig;
}

export class ScriptedConfig {
  @IsString() _type!: string;
  @IfPresent() @IsString() description?: string;
  @IsDefined()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ScriptedStepConfig)
  steps!: ScriptedStepConfig[];
  /** The result: `{{input}}` quotes the input text; later issues add answers by name. */
  @IfPresent() @IsString() output?: string;
  /** The result when a person cancels a prompt that allows it; later steps are skipped. */
  @IfPresent() @IsString() cancel_output?: string;
  /** Also stream the rendered output as the last output item (default true). */
  @IfPresent() @IsBoolean() stream_output?: boolean;
}
