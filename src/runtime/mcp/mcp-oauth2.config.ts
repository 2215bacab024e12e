import { IsArray, IsBoolean, IsIn, IsInt, IsNumber, IsString, Matches, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ConfigProblem } from '../function-type';

const HTTP_URL = /^https?:\/\/[^\s]+$/;
const url = (field: string) => ({ message: `${field} must be an http(s) URL` });

/**
 * `authentication.<p>: {_type: mcp_oauth2}` (NAT's `MCPOAuth2ProviderConfig`): an MCP server protected
 * as the MCP authorization spec says. Its authorization server is discovered from the server (RFC 9728
 * protected resource metadata, then RFC 8414 / OpenID discovery); the client registers itself (RFC 7591)
 * unless `client_id` is given; each user authorizes with the code grant and PKCE.
 */
export class McpOAuth2Config {
  @IsString() _type!: string;
  /** The MCP server (the protected resource), not the authorization server. */
  @IsString() @Matches(HTTP_URL, url('server_url')) server_url!: string;
  @IfPresent() @IsString() client_id?: string;
  @IfPresent() @IsString() client_secret?: string;
  /** Ignored when `client_id` is given. */
  @IfPresent() @IsBoolean() enable_dynamic_registration = true;
  @IfPresent() @IsString() client_name = 'NAT MCP Client';
  /** NAT requires it; here the default is `general.front_end.public_base_url` + `oauth2_callback_path`. */
  @IfPresent() @IsString() @Matches(HTTP_URL, url('redirect_uri')) redirect_uri?: string;
  @IfPresent()
  @IsIn(['client_secret_basic', 'client_secret_post', 'none'])
  token_endpoint_auth_method: 'client_secret_basic' | 'client_secret_post' | 'none' = 'client_secret_post';
  /** Empty: the scopes the server's protected resource metadata lists. */
  @IfPresent() @IsArray() @IsString({ each: true }) scopes: string[] = [];
  @IfPresent() @IsBoolean() use_pkce = true;
  @IfPresent() @IsString() default_user_id?: string;
  @IfPresent() @IsBoolean() allow_default_user_id_for_tool_calls = true;
  /** Seconds a dynamic registration is reused before the client registers again (0: never again). */
  @IfPresent() @IsNumber() @Min(0) oauth_client_ttl = 270;
  @IfPresent() @IsString() token_storage_object_store?: string;
  /** How long a user has to consent (Interlude's, as `oauth2_auth_code_flow`'s). */
  @IfPresent() @Min(1) @IsInt() auth_timeout_seconds = 300;
  @IfPresent() @IsString() description?: string;
}

/** Cross-field rules, and the fields accepted that configure nothing here (one warning each). */
export function checkMcpOAuth2(config: McpOAuth2Config): {
  problems: ConfigProblem[];
  notes: ConfigProblem[];
} {
  const problems: ConfigProblem[] = [];
  const notes: ConfigProblem[] = [];
  if (!config.client_id && !config.enable_dynamic_registration)
    problems.push({
      loc: ['client_id'],
      message:
        'Must provide either: 1) enable_dynamic_registration=True without client_id (dynamic), or 2) client_id with optional client_secret (manual)',
    });
  if (!config.use_pkce)
    notes.push({
      loc: ['use_pkce'],
      message: 'PKCE (S256) is always used, as the MCP authorization spec requires',
    });
  const perUser =
    'each user authorizes for themselves: tokens are kept per user, never shared through a default user';
  if (config.default_user_id !== undefined) notes.push({ loc: ['default_user_id'], message: perUser });
  if (!config.allow_default_user_id_for_tool_calls)
    notes.push({ loc: ['allow_default_user_id_for_tool_calls'], message: perUser });
  if (config.token_storage_object_store !== undefined)
    notes.push({
      loc: ['token_storage_object_store'],
      message:
        "tokens are kept in Interlude's OAuth token store (memory, or Postgres sealed with the token key when store: postgres)",
    });
  return { problems, notes };
}
