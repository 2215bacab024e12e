import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Min,
  ValidateIf,
} from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';

const HTTP_URL = /^https?:\/\/[^\s]+$/;
const url = (field: string) => ({ message: `${field} must be an http(s) URL` });

/**
 * `_type: oauth2_auth_code_flow`: the authorization-code grant (PKCE by default) for a third-party API
 * a workflow calls as the user. Either `issuer` (OpenID Connect discovery) or both endpoint URLs.
 */
export class OAuth2AuthCodeFlowConfig {
  @IsString() _type!: string;
  @IsString() client_id!: string;
  /** Leave out for a public client (then `token_endpoint_auth_method` is `none`). */
  @IfPresent() @IsString() client_secret?: string;
  @ValidateIf((o: OAuth2AuthCodeFlowConfig) => o.issuer === undefined)
  @IsString()
  @Matches(HTTP_URL, url('authorization_url'))
  authorization_url?: string;
  @ValidateIf((o: OAuth2AuthCodeFlowConfig) => o.issuer === undefined)
  @IsString()
  @Matches(HTTP_URL, url('token_url'))
  token_url?: string;
  @IfPresent() @IsString() @Matches(HTTP_URL, url('issuer')) issuer?: string;
  @IfPresent() @IsArray() @IsString({ each: true }) scopes: string[] = [];
  /** Default: `general.front_end.public_base_url` + `oauth2_callback_path`. */
  @IfPresent() @IsString() @Matches(HTTP_URL, url('redirect_uri')) redirect_uri?: string;
  @IfPresent() @IsBoolean() use_pkce = true;
  @IfPresent()
  @IsIn(['client_secret_basic', 'client_secret_post', 'none'])
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Extra query parameters for the authorization request (e.g. `{access_type: offline, prompt: consent}`). */
  @IfPresent() @IsObject() authorization_kwargs: Record<string, string> = {};
  @IfPresent() @Min(1) @IsInt() auth_timeout_seconds = 300;
  @IfPresent() @IsString() description?: string;
}

/**
 * `mcp_service_account` and `api_key` are in runtime/mcp/mcp-auth.config.ts (an MCP client sends them),
 * `mcp_oauth2` in runtime/mcp/mcp-oauth2.config.ts.
 */
export const AUTH_PROVIDER_TYPES = ['oauth2_auth_code_flow', 'mcp_service_account', 'api_key', 'mcp_oauth2'];
