import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Min,
  ValidateNested,
} from 'class-validator';
import { IsRoutePath } from './route-path';
import { IsDuration } from '../core/validation/duration';
import { IfPresent } from '../core/validation/if-present.decorator';

/*
 * The fields of NeMo Agent Toolkit's FastApiFrontEndConfig, GeneralConfig and TelemetryConfig that have
 * no Interlude field of the same meaning, so a NAT user's file loads. nat-compat.ts says which are used
 * and warns about the rest.
 */

export const ENDPOINT_METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;
export type EndpointMethod = (typeof ENDPOINT_METHODS)[number];

/** NAT's `EndpointBase`: the paths one function is served at. */
export class NatEndpointBaseConfig {
  @IsDefined() @IsIn(ENDPOINT_METHODS as unknown as string[]) method!: EndpointMethod;
  @IfPresent() @IsString() description = '';
  @IsOptional() @IsString() @IsRoutePath() path?: string | null;
  @IsOptional() @IsString() @IsRoutePath() websocket_path?: string | null;
  @IsOptional() @IsString() @IsRoutePath() openai_api_path?: string | null;
  @IsOptional() @IsString() @IsRoutePath() openai_api_v1_path?: string | null;
  @IsOptional() @IsIn(['auto', 'chat_completions', 'responses']) openai_api_v1_format?: string;
  @IsOptional() @IsString() @IsRoutePath() legacy_path?: string | null;
  @IsOptional() @IsString() @IsRoutePath() legacy_openai_api_path?: string | null;
}

/** An extra endpoint: a function of `functions:` served at its own path and method. */
export class NatEndpointConfig extends NatEndpointBaseConfig {
  @IsDefined() @IsString() function_name!: string;
}

/** NAT's front-end fields beyond the ones Interlude shares with it. */
export class NatFrontEndFields {
  @IfPresent() @IsBoolean() reload = false;
  @IfPresent() @Min(1) @IsInt() workers = 1;
  @IsOptional() @IsString() scheduler_address: string | null = null;
  /** NAT's async-jobs database (a SQLAlchemy URL); used as `general.db_url` when that is not set. */
  @IsOptional() @IsString() db_url: string | null = null;
  /** Kept for async jobs: how many run at once. */
  @IfPresent() @Min(1) @IsInt() max_running_async_jobs = 10;
  @IfPresent() @IsIn(['threads', 'processes']) dask_workers: 'threads' | 'processes' = 'processes';
  @IfPresent() @IsString() dask_log_level = 'WARNING';
  @IfPresent() @IsString() dask_worker_memory_limit = '0';
  @IfPresent() @Min(0) @IsInt() dask_threads_per_worker = 1;
  @IsOptional() @ValidateNested() @Type(() => NatEndpointBaseConfig) evaluate?: NatEndpointBaseConfig;
  @IsOptional() @ValidateNested() @Type(() => NatEndpointBaseConfig) evaluate_item?: NatEndpointBaseConfig;
  /** Functions served at paths of their own, like the workflow. */
  @IfPresent()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => NatEndpointConfig)
  endpoints: NatEndpointConfig[] = [];
  @IfPresent() @IsBoolean() use_gunicorn = false;
  @IsOptional() @IsString() runner_class: string | null = null;
  @IsOptional() @IsString() object_store: string | null = null;
  // Earlier NAT releases' fields.
  @IfPresent() @Min(1) @IsInt() max_concurrent_users = 100;
  @IsOptional() @IsDuration() user_idle_timeout?: number | string;
  @IsOptional() @IsDuration() cleanup_check_interval?: number | string;
  @IfPresent() @IsBoolean() require_user_id = false;
}

/** NAT's `general.telemetry`: logging and tracing exporters, each a named component with a `_type`. */
export class NatTelemetryConfig {
  @IfPresent() @IsObject() logging: Record<string, unknown> = {};
  @IfPresent() @IsObject() tracing: Record<string, unknown> = {};
}
