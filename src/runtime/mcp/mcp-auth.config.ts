import { Type } from 'class-transformer';
import {
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ConfigProblem } from '../function-type';

/** An HTTP header name (RFC 9110 token), as NAT checks `custom_header_name`. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-zA-Z]+$/;
/** A header value we set: printable ASCII, no line breaks (a value can never start another header). */
const HEADER_VALUE = /^[\x20-\x7e]*$/;

/** `service_token:` of `mcp_service_account` (NAT's `ServiceTokenConfig`): a second header for the API. */
export class ServiceTokenConfig {
  @IfPresent()
  @IsString()
  @Matches(HEADER_VALUE, { message: 'token must be printable ASCII' })
  token?: string;
  @IfPresent()
  @IsString()
  @Matches(HEADER_NAME, { message: 'header must be an HTTP header name' })
  header = 'X-Service-Account-Token';
  /** NAT's Python function that returns the token: it cannot run here (warned about, see checks). */
  @IfPresent() @IsString() function?: string;
  @IfPresent() @IsObject() kwargs: Record<string, unknown> = {};
}

/**
 * `authentication.<p>: {_type: mcp_service_account}` (NAT's `MCPServiceAccountProviderConfig`): an
 * `mcp_client` group's requests carry a bearer token from the OAuth 2.0 client credentials grant.
 */
export class McpServiceAccountConfig {
  @IsString() _type!: string;
  @IsString() client_id!: string;
  @IsString() client_secret!: string;
  @IsString() token_url!: string;
  /** NAT also reads one space-separated string (split before validation). */
  @IsDefined() @IsArray() @IsString({ each: true }) scopes!: string[];
  @IfPresent() @ValidateNested() @Type(() => ServiceTokenConfig) service_token?: ServiceTokenConfig;
  @IfPresent() @IsInt() @Min(0) token_cache_buffer_seconds = 300;
}

export const API_KEY_SCHEMES = ['Bearer', 'X-API-Key', 'Custom'] as const;

/** `authentication.<p>: {_type: api_key}` (NAT's `APIKeyAuthProviderConfig`): a fixed key in a header. */
export class ApiKeyAuthConfig {
  @IsString() _type!: string;
  @IsString()
  @MinLength(8, { message: 'raw_key must be at least 8 characters long' })
  @Matches(/^[\x21-\x7e]+$/, { message: 'raw_key must be printable ASCII without whitespace' })
  raw_key!: string;
  @IfPresent() @IsIn(API_KEY_SCHEMES) auth_scheme: (typeof API_KEY_SCHEMES)[number] = 'Bearer';
  @IfPresent()
  @IsString()
  @Matches(HEADER_NAME, { message: 'custom_header_name must be an HTTP header name' })
  custom_header_name?: string;
  @IfPresent()
  @IsString()
  @Matches(/^[\x21-\x7e]+$/, { message: 'custom_header_prefix must be ASCII' })
  custom_header_prefix?: string;
}

/** The auth providers whose credentials are headers an MCP client sends. */
export type HeaderAuthConfig = McpServiceAccountConfig | ApiKeyAuthConfig;
export const HEADER_AUTH_TYPES = ['mcp_service_account', 'api_key'];

/** NAT reads `scopes: "a b"` as `[a, b]`. */
export function splitScopes(entry: Record<string, unknown>): Record<string, unknown> {
  return typeof entry.scopes === 'string'
    ? { ...entry, scopes: entry.scopes.split(/\s+/).filter(Boolean) }
    : entry;
}

/** Cross-field rules; `notes` are fields accepted that do nothing here (one warning each). */
export function checkHeaderAuth(config: HeaderAuthConfig): {
  problems: ConfigProblem[];
  notes: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const notes: ConfigProblem[] = [];
  if (config instanceof ApiKeyAuthConfig) {
    if (config.auth_scheme === 'Custom') {
      for (const field of ['custom_header_name', 'custom_header_prefix'] as const)
        if (!config[field])
          problems.push({ loc: [field], message: `${field} is required when auth_scheme is Custom` });
    }
    return { problems, notes };
  }
  if (!URL.canParse(config.token_url) || !/^https?:$/.test(new URL(config.token_url).protocol))
    problems.push({ loc: ['token_url'], message: 'token_url must be an http(s) URL' });
  const service = config.service_token;
  if (service) {
    if (service.token === undefined && service.function === undefined)
      problems.push({
        loc: ['service_token'],
        message: "Either 'token' or 'function' must be provided in service_token config",
      });
    if (service.token !== undefined && service.function !== undefined)
      problems.push({
        loc: ['service_token'],
        message: "Cannot specify both 'token' and 'function' in service_token config",
      });
    if (service.token === undefined && service.function !== undefined)
      notes.push({
        loc: ['service_token', 'function'],
        message: `"${service.function}" is a Python function, which Interlude cannot call; no service token header is sent (give service_token.token instead)`,
      });
  }
  return { problems, notes };
}
