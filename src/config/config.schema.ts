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
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { STEP_ADAPTOR_MODES, type StepAdaptorMode } from '../runtime/step-adaptor';

const ROUTE = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;
const ROUTE_MSG = { message: 'must be an absolute URL path such as /v1/workflow' };
const nullable = (o: object, key: string) => (o as Record<string, unknown>)[key] !== null;

export class CorsConfig {
  @IsOptional() @IsArray() @IsString({ each: true }) allow_origins: string[] = [];
  @IsOptional() @IsString() allow_origin_regex: string | null = null;
  @IsOptional() @IsArray() @IsString({ each: true }) allow_methods: string[] = ['GET', 'POST', 'OPTIONS'];
  @IsOptional() @IsArray() @IsString({ each: true }) allow_headers: string[] = ['*'];
  @IsOptional() @IsBoolean() allow_credentials = false;
  @IsOptional() @IsArray() @IsString({ each: true }) expose_headers: string[] = [];
  @IsOptional() @IsInt() @Min(0) max_age = 600;
}

/** Route paths; each may be set to null to remove that route. */
export class WorkflowRoutesConfig {
  @IsOptional() @IsIn(['POST']) method = 'POST';
  @ValidateIf((o: object) => nullable(o, 'path')) @IsString() @Matches(ROUTE, ROUTE_MSG) path: string | null =
    '/v1/workflow';
  @ValidateIf((o: object) => nullable(o, 'websocket_path'))
  @IsString()
  @Matches(ROUTE, ROUTE_MSG)
  websocket_path: string | null = '/websocket';
  @ValidateIf((o: object) => nullable(o, 'openai_api_path'))
  @IsString()
  @Matches(ROUTE, ROUTE_MSG)
  openai_api_path: string | null = '/v1/chat';
  @ValidateIf((o: object) => nullable(o, 'openai_api_v1_path'))
  @IsString()
  @Matches(ROUTE, ROUTE_MSG)
  openai_api_v1_path: string | null = '/v1/chat/completions';
  @ValidateIf((o: object) => nullable(o, 'legacy_path'))
  @IsString()
  @Matches(ROUTE, ROUTE_MSG)
  legacy_path: string | null = '/generate';
  @ValidateIf((o: object) => nullable(o, 'legacy_openai_api_path'))
  @IsString()
  @Matches(ROUTE, ROUTE_MSG)
  legacy_openai_api_path: string | null = '/chat';
  @IsOptional() @IsString() description?: string;
}

export class StepAdaptorConfig {
  @IsOptional() @IsIn(STEP_ADAPTOR_MODES as unknown as string[]) mode: StepAdaptorMode = 'default';
  @IsOptional() @IsArray() @IsString({ each: true }) custom_event_types: string[] = [];
}

export const FRONT_END_TYPES = ['http', 'fastapi'];

export class FrontEndConfig {
  @IsOptional()
  @IsIn(FRONT_END_TYPES, { message: `_type must be one of: ${FRONT_END_TYPES.join(', ')}` })
  _type = 'http';
  @IsOptional() @IsString() host = 'localhost';
  @IsOptional() @IsInt() @Min(0) @Max(65535) port = 8000;
  @IsOptional()
  @IsString()
  @ValidateIf((o: FrontEndConfig) => o.root_path !== '')
  @Matches(ROUTE, ROUTE_MSG)
  root_path = '';
  @IsOptional() @ValidateNested() @Type(() => WorkflowRoutesConfig) workflow = new WorkflowRoutesConfig();
  @IsOptional() @IsBoolean() disable_legacy_routes = false;
  @IsOptional() @IsBoolean() enable_interactive_extensions = false;
  @IsOptional() @IsString() @Matches(ROUTE, ROUTE_MSG) oauth2_callback_path = '/auth/redirect';
  @IsOptional() @ValidateNested() @Type(() => CorsConfig) cors = new CorsConfig();
  @IsOptional() @IsInt() @Min(1) max_body_bytes = 10 * 1024 * 1024;
  @IsOptional() @ValidateNested() @Type(() => StepAdaptorConfig) step_adaptor = new StepAdaptorConfig();
  /** Seconds of silence on an SSE stream before a `: keep-alive` comment. */
  @IsOptional() @IsInt() @Min(1) sse_keepalive_seconds = 15;
  /** Seconds a finished execution stays readable before it is evicted. */
  @IsOptional() @IsInt() @Min(1) execution_ttl_seconds = 3600;
}

export class GeneralConfig {
  @IsOptional() @ValidateNested() @Type(() => FrontEndConfig) front_end = new FrontEndConfig();
  @IsOptional() @IsBoolean() enable_per_user_monitoring = false;
  // Accepted for NeMo Agent Toolkit config compatibility; they configure nothing here yet.
  @IsOptional() @IsBoolean() use_uvloop?: boolean;
  @IsOptional() @IsObject() telemetry?: Record<string, unknown>;
}

/** A named component (`llms`, `functions`, `authentication`, `workflow`): `_type` picks its schema. */
export class ComponentConfig {
  @IsDefined({ message: '_type is required' }) @IsString() _type!: string;
  [field: string]: unknown;
}

/** The YAML file, as NeMo Agent Toolkit lays it out. */
export class ConfigFile {
  @IsOptional() @ValidateNested() @Type(() => GeneralConfig) general = new GeneralConfig();
  @IsOptional() @IsObject() llms: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() functions: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() authentication: Record<string, ComponentConfig> = {};
  @IsOptional() @IsObject() function_groups?: Record<string, unknown>;
  @IsOptional() @IsObject() embedders?: Record<string, unknown>;
  @IsOptional() @IsObject() memory?: Record<string, unknown>;
  @IsOptional() @IsObject() retrievers?: Record<string, unknown>;
  @IsDefined({ message: 'a workflow section with a _type is required' })
  @IsObject()
  workflow!: ComponentConfig;
}
