import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsString,
  Min,
  ValidateNested,
} from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ConfigProblem, ConfigReference } from '../function-type';
import { HEADER_AUTH_TYPES } from './mcp-auth.config';

export const TRANSPORTS = ['streamable-http', 'sse', 'stdio'] as const;
export type McpTransport = (typeof TRANSPORTS)[number];

/** `server:` of an `mcp_client` group (NeMo Agent Toolkit's `MCPServerConfig`). */
export class McpServerConfig {
  /** NAT's default: streamable HTTP. */
  @IfPresent() @IsIn(TRANSPORTS) transport: McpTransport = 'streamable-http';
  @IfPresent() @IsString() url?: string;
  /** Only ever from the config file: a request never names a command. */
  @IfPresent() @IsString() command?: string;
  @IfPresent() @IsArray() @IsString({ each: true }) args?: string[];
  @IfPresent() @IsObject() env?: Record<string, string>;
  @IfPresent() @IsString() auth_provider?: string;
  @IfPresent() @IsObject() custom_headers?: Record<string, string>;
}

/**
 * `_type: mcp_client` (NeMo Agent Toolkit's `MCPClientConfig`): the tools of one MCP server as a
 * function group. Durations are in seconds, as NAT reads a number for its `timedelta` fields.
 */
export class McpClientConfig {
  @IsString() _type!: string;
  @IsDefined() @ValidateNested() @Type(() => McpServerConfig) server!: McpServerConfig;
  @IfPresent() @IsObject() tool_overrides?: Record<string, { alias?: string; description?: string }>;
  @IfPresent() @IsArray() @IsString({ each: true }) include: string[] = [];
  @IfPresent() @IsArray() @IsString({ each: true }) exclude: string[] = [];
  @IfPresent() @IsNumber() @Min(0) tool_call_timeout = 60;
  @IfPresent() @IsNumber() @Min(0) auth_flow_timeout = 300;
  @IfPresent() @IsBoolean() reconnect_enabled = true;
  @IfPresent() @IsInt() @Min(0) reconnect_max_attempts = 2;
  @IfPresent() @IsNumber() @Min(0) reconnect_initial_backoff = 0.5;
  @IfPresent() @IsNumber() @Min(0) reconnect_max_backoff = 50;
  // NAT's per-session clients (keyed by the `nat-session` cookie): accepted; one shared session here.
  @IfPresent() @IsBoolean() session_aware_tools = true;
  @IfPresent() @IsInt() @Min(1) max_sessions = 100;
  @IfPresent() @IsNumber() @Min(0) session_idle_timeout = 3600;
  @IfPresent() @IsString() scope?: string;
}

/** `server.auth_provider` names a provider whose credentials are headers (NAT's `mcp_oauth2` is not here yet). */
export function authorizedProviders(config: McpClientConfig): ConfigReference[] {
  const name = config.server.auth_provider;
  if (name === undefined || config.server.transport === 'stdio') return [];
  return [{ loc: ['server', 'auth_provider'], section: 'authentication', name, types: HEADER_AUTH_TYPES }];
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function stringMap(value: unknown, loc: string[], problems: ConfigProblem[]): void {
  if (value === undefined) return;
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'string')
      problems.push({ loc: [...loc, key], message: 'Input should be a valid string' });
  }
}

function unique(list: string[], field: string, problems: ConfigProblem[]): void {
  list.forEach((name, i) => {
    if (list.indexOf(name) !== i) problems.push({ loc: [field, i], message: `"${name}" is listed twice` });
  });
}

/** NAT's cross-field rules: what each transport needs and refuses, unique include/exclude, backoffs. */
export function checkMcpClient(config: McpClientConfig): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const { server } = config;
  const at = (field: string, message: string) => problems.push({ loc: ['server', field], message });
  if (server.transport === 'stdio') {
    if (server.url !== undefined) at('url', 'url should not be set when using stdio transport');
    if (!server.command) at('command', 'command is required when using stdio transport');
    if (server.auth_provider !== undefined)
      at('auth_provider', 'Authentication is not supported for stdio transport');
    if (server.custom_headers !== undefined)
      at('custom_headers', 'custom_headers is not supported for stdio transport');
  } else {
    for (const field of ['command', 'args', 'env'] as const) {
      if (server[field] !== undefined)
        at(field, `${field} should not be set when using ${server.transport} transport`);
    }
    if (!server.url) at('url', `url is required when using ${server.transport} transport`);
    else if (!URL.canParse(server.url) || !/^https?:$/.test(new URL(server.url).protocol)) {
      at('url', 'must be an http(s) URL');
    }
    if (server.transport === 'sse' && server.custom_headers !== undefined) {
      at('custom_headers', 'custom_headers is not supported for SSE transport');
    }
  }
  stringMap(server.env, ['server', 'env'], problems);
  stringMap(server.custom_headers, ['server', 'custom_headers'], problems);
  if (config.include.length && config.exclude.length) {
    problems.push({ loc: ['include'], message: 'include and exclude cannot be used together' });
  }
  unique(config.include, 'include', problems);
  unique(config.exclude, 'exclude', problems);
  if (config.reconnect_max_backoff < config.reconnect_initial_backoff) {
    problems.push({
      loc: ['reconnect_max_backoff'],
      message: 'reconnect_max_backoff must be greater than or equal to reconnect_initial_backoff',
    });
  }
  const aliases = new Set<string>();
  for (const [tool, override] of Object.entries(config.tool_overrides ?? {})) {
    const loc = ['tool_overrides', tool];
    if (override === null || typeof override !== 'object' || Array.isArray(override)) {
      problems.push({ loc, message: 'must be a mapping with alias and/or description' });
      continue;
    }
    for (const [key, value] of Object.entries(override)) {
      if (key !== 'alias' && key !== 'description') {
        problems.push({ loc: [...loc, key], message: 'Extra inputs are not permitted' });
      } else if (typeof value !== 'string') {
        problems.push({ loc: [...loc, key], message: 'Input should be a valid string' });
      }
    }
    const alias = override.alias;
    if (typeof alias === 'string') {
      if (!TOOL_NAME.test(alias)) {
        problems.push({ loc: [...loc, 'alias'], message: 'must be 1-64 letters, digits, _ or -' });
      } else if (aliases.has(alias)) {
        problems.push({ loc: [...loc, 'alias'], message: `alias "${alias}" is used twice` });
      }
      aliases.add(alias);
    }
  }
  return problems;
}
