import { Logger } from '@nestjs/common';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { AuthorizationServerMetadata } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { McpOAuth2Config } from '../runtime/mcp/mcp-oauth2.config';
import { TokenEndpointError, type AuthCodeClient, type TokenSet } from './oauth-client';

type SdkAuth = typeof import('@modelcontextprotocol/sdk/client/auth.js');
type SdkAuthUtils = typeof import('@modelcontextprotocol/sdk/shared/auth-utils.js');

/**
 * Where a dynamic registration is kept (the OAuth token store: sealed at rest, shared by replicas), so
 * that every replica, and the next start, speaks as the client that began a user's flow and holds
 * their refresh token.
 */
export interface ClientRegistrations {
  get(key: string): Promise<string | undefined>;
  set(key: string, registration: string): Promise<void>;
}

/** What discovery found for the MCP server: its authorization server, the resource and the scopes. */
interface Discovered {
  authorizationServerUrl: string;
  metadata: AuthorizationServerMetadata;
  /** RFC 8707 `resource`: the protected resource metadata's (verbatim), or the server URL. */
  resource: string;
  scope?: string;
}

/**
 * An `mcp_oauth2` provider, through the MCP SDK's client auth (no hand-written OAuth): discovery of the
 * server's protected resource metadata (RFC 9728) and its authorization server's metadata (RFC 8414 /
 * OpenID discovery), dynamic client registration (RFC 7591) when no `client_id` is configured, and the
 * authorization code grant with PKCE and the `resource` indicator. Discovery happens at the first flow
 * and is kept while the process runs; a registration is kept in `ClientRegistrations` (a registered
 * client's tokens, refresh tokens included, are bound to it). The consent itself goes through
 * OAuthService like any other provider's.
 */
export class McpOAuthClient implements AuthCodeClient {
  private readonly logger = new Logger('OAuth');
  private discovered?: Promise<Discovered>;
  private registering?: Promise<void>;

  constructor(
    readonly name: string,
    private readonly config: McpOAuth2Config,
    readonly redirectUri: string,
    private readonly fetchFn: typeof fetch,
    private readonly registrations: ClientRegistrations,
  ) {}

  get timeoutSeconds(): number {
    return this.config.auth_timeout_seconds;
  }

  private sdk(): SdkAuth {
    // The SDK is loaded by the first flow that needs it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@modelcontextprotocol/sdk/client/auth.js') as SdkAuth;
  }

  private utils(): SdkAuthUtils {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('@modelcontextprotocol/sdk/shared/auth-utils.js') as SdkAuthUtils;
  }

  /**
   * What the server's 401 says (the MCP spec's first discovery step): where its protected resource
   * metadata is (`resource_metadata`) and the scope it wants. Nothing when it answers otherwise or not
   * at all: the well-known locations are tried next.
   */
  private async challenge(): Promise<{ resourceMetadataUrl?: URL; scope?: string }> {
    try {
      const answer = await this.fetchFn(this.config.server_url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }),
      });
      await answer.arrayBuffer().catch(() => undefined);
      if (answer.status !== 401) return {};
      const { resourceMetadataUrl, scope } = this.sdk().extractWWWAuthenticateParams(answer);
      return { resourceMetadataUrl, scope };
    } catch {
      return {};
    }
  }

  private discover(): Promise<Discovered> {
    this.discovered ??= this.runDiscovery().catch((err: unknown) => {
      this.discovered = undefined;
      throw err;
    });
    return this.discovered;
  }

  private async runDiscovery(): Promise<Discovered> {
    const { server_url, scopes } = this.config;
    const challenge = await this.challenge();
    const info = await this.sdk().discoverOAuthServerInfo(server_url, {
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      fetchFn: this.fetchFn,
    });
    if (!info.authorizationServerMetadata)
      throw new TokenEndpointError(
        `${this.name}: no authorization server metadata found for ${info.authorizationServerUrl}`,
      );
    const resource = info.resourceMetadata?.resource ?? server_url;
    // RFC 9728 §3.3: metadata for another resource is not this server's.
    if (!this.utils().checkResourceAllowed({ requestedResource: server_url, configuredResource: resource }))
      throw new TokenEndpointError(
        `${this.name}: the protected resource metadata names ${resource}, which is not ${server_url}`,
      );
    // The MCP spec's scope choice: the configured scopes, the 401's, then the metadata's.
    const listed = info.resourceMetadata?.scopes_supported?.join(' ');
    const scope = (scopes.length ? scopes.join(' ') : (challenge.scope ?? listed)) || undefined;
    this.logger.log(
      `${this.name}: ${server_url} is protected by ${info.authorizationServerUrl}${info.resourceMetadata ? '' : ' (no protected resource metadata: the server itself)'}`,
    );
    return {
      authorizationServerUrl: info.authorizationServerUrl,
      metadata: info.authorizationServerMetadata,
      resource,
      scope,
    };
  }

  /**
   * The configured client (a public one, authenticating with PKCE alone, when it has no secret), or the
   * one registered with this authorization server for this redirect URI, registering it the first time.
   * Always read from the store: replicas that registered side by side agree on the last one stored.
   */
  private async client(found: Discovered): Promise<OAuthClientInformationMixed> {
    const { client_id, client_secret, token_endpoint_auth_method } = this.config;
    if (client_id)
      return client_secret
        ? { client_id, client_secret, token_endpoint_auth_method }
        : { client_id, token_endpoint_auth_method: 'none' };
    const key = `mcp-client:${this.name}:${found.authorizationServerUrl} ${this.redirectUri}`;
    let stored = await this.registrations.get(key);
    if (!stored) {
      this.registering ??= this.register(found)
        .then((info) => this.registrations.set(key, JSON.stringify(info)))
        .finally(() => (this.registering = undefined));
      await this.registering;
      stored = await this.registrations.get(key);
      if (!stored) throw new TokenEndpointError(`${this.name}: the client registration could not be kept`);
    }
    return JSON.parse(stored) as OAuthClientInformationMixed;
  }

  private async register(found: Discovered): Promise<OAuthClientInformationMixed> {
    if (!found.metadata.registration_endpoint)
      throw new TokenEndpointError(
        `${this.name}: the authorization server offers no dynamic client registration; configure client_id`,
      );
    let info: OAuthClientInformationMixed;
    try {
      info = await this.sdk().registerClient(found.authorizationServerUrl, {
        metadata: found.metadata,
        clientMetadata: {
          redirect_uris: [this.redirectUri],
          token_endpoint_auth_method: this.config.token_endpoint_auth_method,
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          client_name: this.config.client_name,
          ...(found.scope ? { scope: found.scope } : {}),
        },
        fetchFn: this.fetchFn,
      });
    } catch (err) {
      throw new TokenEndpointError(`${this.name}: dynamic client registration failed (${safe(err)})`);
    }
    this.logger.log(`${this.name}: registered as OAuth client ${info.client_id}`);
    return info;
  }

  async begin(state: string): Promise<{ url: string; codeVerifier?: string }> {
    const found = await this.discover();
    const clientInformation = await this.client(found);
    const { authorizationUrl, codeVerifier } = await this.sdk().startAuthorization(
      found.authorizationServerUrl,
      {
        metadata: found.metadata,
        clientInformation,
        redirectUrl: this.redirectUri,
        scope: found.scope,
        state,
        resource: found.resource,
      },
    );
    return { url: authorizationUrl.href, codeVerifier };
  }

  async exchange(
    callback: URLSearchParams,
    state: string,
    codeVerifier: string | undefined,
  ): Promise<TokenSet> {
    const code = callback.get('code');
    if (callback.get('state') !== state || !code || !codeVerifier)
      throw new TokenEndpointError(`${this.name}: the callback carried no usable authorization code`);
    const found = await this.discover();
    const clientInformation = await this.client(found);
    return this.tokens(() =>
      this.sdk().exchangeAuthorization(found.authorizationServerUrl, {
        metadata: found.metadata,
        clientInformation,
        authorizationCode: code,
        codeVerifier,
        redirectUri: this.redirectUri,
        resource: found.resource,
        fetchFn: this.fetchFn,
      }),
    );
  }

  async refresh(refreshToken: string): Promise<TokenSet> {
    const found = await this.discover();
    const clientInformation = await this.client(found);
    const tokens = await this.tokens(() =>
      this.sdk().refreshAuthorization(found.authorizationServerUrl, {
        metadata: found.metadata,
        clientInformation,
        refreshToken,
        resource: found.resource,
        fetchFn: this.fetchFn,
      }),
    );
    return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
  }

  private async tokens(request: () => Promise<OAuthTokens>): Promise<TokenSet> {
    let answer: OAuthTokens;
    try {
      answer = await request();
    } catch (err) {
      throw new TokenEndpointError(`${this.name}: the token endpoint refused the request (${safe(err)})`);
    }
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expiresAt: typeof answer.expires_in === 'number' ? Date.now() + answer.expires_in * 1000 : undefined,
    };
  }
}

/** An SDK error's OAuth code (`invalid_grant`…) or its class: never a body that could hold a secret. */
function safe(err: unknown): string {
  const code = (err as { errorCode?: unknown }).errorCode;
  if (typeof code === 'string') return code;
  return err instanceof Error ? err.name : 'error';
}
