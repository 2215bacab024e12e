import * as oauth from 'oauth4webapi';
import type { OAuth2AuthCodeFlowConfig } from '../config/authentication.schema';

/** What this server keeps of a provider's token response. */
export interface TokenSet {
  accessToken: string;
  refreshToken?: string;
  /** Epoch ms, or undefined when the provider gave no lifetime. */
  expiresAt?: number;
}

/** Why a token request failed; the message never contains a secret (no code, token or client secret). */
export class TokenEndpointError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenEndpointError';
  }
}

/** What a flow needs of a provider, whichever way its endpoints and client are known. */
export interface AuthCodeClient {
  readonly name: string;
  readonly redirectUri: string;
  readonly timeoutSeconds: number;
  /** The provider's authorization URL for one flow, and the PKCE verifier it was made with. */
  begin(state: string): Promise<{ url: string; codeVerifier?: string }>;
  /** Exchanges the code from the callback (its full query) for tokens. */
  exchange(callback: URLSearchParams, state: string, codeVerifier: string | undefined): Promise<TokenSet>;
  refresh(refreshToken: string): Promise<TokenSet>;
}

/**
 * One configured provider, spoken to with oauth4webapi (no hand-written token requests): endpoint
 * discovery for `issuer`, PKCE, client authentication, the code and refresh grants.
 */
export class OAuthClient implements AuthCodeClient {
  private server?: Promise<oauth.AuthorizationServer>;
  private readonly client: oauth.Client;
  private readonly auth: oauth.ClientAuth;
  private readonly insecure: boolean;

  constructor(
    readonly name: string,
    private readonly config: OAuth2AuthCodeFlowConfig,
    readonly redirectUri: string,
  ) {
    this.client = { client_id: config.client_id };
    const method =
      config.token_endpoint_auth_method ?? (config.client_secret ? 'client_secret_basic' : 'none');
    this.auth =
      method === 'none'
        ? oauth.None()
        : method === 'client_secret_post'
          ? oauth.ClientSecretPost(config.client_secret ?? '')
          : oauth.ClientSecretBasic(config.client_secret ?? '');
    const urls = [config.issuer, config.authorization_url, config.token_url].filter(Boolean) as string[];
    this.insecure = urls.some((u) => u.startsWith('http://'));
  }

  async begin(state: string): Promise<{ url: string; codeVerifier?: string }> {
    const codeVerifier = this.config.use_pkce ? oauth.generateRandomCodeVerifier() : undefined;
    return { url: await this.authorizationUrl(state, codeVerifier), codeVerifier };
  }

  get timeoutSeconds(): number {
    return this.config.auth_timeout_seconds;
  }

  private authorizationServer(): Promise<oauth.AuthorizationServer> {
    this.server ??= this.discover().catch((err: unknown) => {
      this.server = undefined;
      throw err;
    });
    return this.server;
  }

  private async discover(): Promise<oauth.AuthorizationServer> {
    const { issuer, authorization_url, token_url } = this.config;
    if (!issuer) {
      return {
        issuer: new URL(authorization_url!).origin,
        authorization_endpoint: authorization_url,
        token_endpoint: token_url,
      };
    }
    const url = new URL(issuer);
    const response = await oauth.discoveryRequest(url, { [oauth.allowInsecureRequests]: this.insecure });
    return oauth.processDiscoveryResponse(url, response);
  }

  private async authorizationUrl(state: string, codeVerifier: string | undefined): Promise<string> {
    const server = await this.authorizationServer();
    if (!server.authorization_endpoint)
      throw new Error(`${this.name}: the provider names no authorization endpoint`);
    const url = new URL(server.authorization_endpoint);
    const params = url.searchParams;
    for (const [k, v] of Object.entries(this.config.authorization_kwargs)) params.set(k, String(v));
    params.set('response_type', 'code');
    params.set('client_id', this.config.client_id);
    params.set('redirect_uri', this.redirectUri);
    if (this.config.scopes.length) params.set('scope', this.config.scopes.join(' '));
    params.set('state', state);
    if (codeVerifier) {
      params.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
      params.set('code_challenge_method', 'S256');
    }
    return url.href;
  }

  async exchange(
    callback: URLSearchParams,
    state: string,
    codeVerifier: string | undefined,
  ): Promise<TokenSet> {
    const server = await this.authorizationServer();
    const params = oauth.validateAuthResponse(server, this.client, callback, state);
    let response: Response;
    try {
      response = await oauth.authorizationCodeGrantRequest(
        server,
        this.client,
        this.auth,
        params,
        this.redirectUri,
        codeVerifier ?? oauth.nopkce,
        { [oauth.allowInsecureRequests]: this.insecure },
      );
    } catch (err) {
      throw new TokenEndpointError(
        `${this.name}: the token endpoint could not be reached (${(err as Error).name})`,
      );
    }
    return this.tokens(() => oauth.processAuthorizationCodeResponse(server, this.client, response));
  }

  async refresh(refreshToken: string): Promise<TokenSet> {
    const server = await this.authorizationServer();
    let response: Response;
    try {
      response = await oauth.refreshTokenGrantRequest(server, this.client, this.auth, refreshToken, {
        [oauth.allowInsecureRequests]: this.insecure,
      });
    } catch (err) {
      throw new TokenEndpointError(
        `${this.name}: the token endpoint could not be reached (${(err as Error).name})`,
      );
    }
    const tokens = await this.tokens(() => oauth.processRefreshTokenResponse(server, this.client, response));
    return { ...tokens, refreshToken: tokens.refreshToken ?? refreshToken };
  }

  private async tokens(process: () => Promise<oauth.TokenEndpointResponse>): Promise<TokenSet> {
    try {
      const result = await process();
      return {
        accessToken: result.access_token,
        refreshToken: result.refresh_token,
        expiresAt: typeof result.expires_in === 'number' ? Date.now() + result.expires_in * 1000 : undefined,
      };
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) {
        throw new TokenEndpointError(`${this.name}: the token endpoint refused the request (${err.error})`);
      }
      throw new TokenEndpointError(
        `${this.name}: the token endpoint answered unexpectedly (${(err as Error).name})`,
      );
    }
  }
}
