import type { OutboundPolicy } from '../../core/outbound/outbound-policy';
import { redactUrl } from '../../core/outbound/redact-url';
import { ApiKeyAuthConfig, type HeaderAuthConfig, type McpServiceAccountConfig } from './mcp-auth.config';
import { policyFetch } from './policy-fetch';

/** Headers an MCP client's requests carry for an `authentication:` provider. */
export interface HeaderAuth {
  headers(): Promise<Record<string, string>>;
  /** The server answered 401: the next request fetches new credentials. */
  rejected(): void;
}

/** The largest token answer read: a token endpoint never needs more. */
const MAX_TOKEN_ANSWER = 64 * 1024;

/**
 * The OAuth 2.0 client credentials grant (RFC 6749 §4.4) for `mcp_service_account`, as NAT's
 * `ServiceAccountTokenClient` does it: the client authenticates with HTTP Basic, the token is kept until
 * `token_cache_buffer_seconds` before it expires (`expires_in`, 3600 when absent), and concurrent
 * requests share one fetch.
 */
class ClientCredentials implements HeaderAuth {
  private token?: { value: string; refreshAt: number };
  private fetching?: Promise<string>;
  private readonly fetch: typeof fetch;

  constructor(
    private readonly config: McpServiceAccountConfig,
    outbound: OutboundPolicy,
  ) {
    this.fetch = policyFetch(outbound);
  }

  async headers(): Promise<Record<string, string>> {
    const token = this.token && Date.now() < this.token.refreshAt ? this.token.value : await this.refresh();
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const service = this.config.service_token;
    if (service?.token !== undefined) headers[service.header.toLowerCase()] = service.token;
    return headers;
  }

  rejected(): void {
    this.token = undefined;
  }

  private refresh(): Promise<string> {
    this.fetching ??= this.request().finally(() => (this.fetching = undefined));
    return this.fetching;
  }

  private async request(): Promise<string> {
    const { client_id, client_secret, token_url, scopes } = this.config;
    // RFC 6749 §2.3.1: each part form-encoded before Basic.
    const basic = Buffer.from(
      `${encodeURIComponent(client_id)}:${encodeURIComponent(client_secret)}`,
    ).toString('base64');
    const body = new URLSearchParams({ grant_type: 'client_credentials' });
    if (scopes.length) body.set('scope', scopes.join(' '));
    const where = `the service account token endpoint ${redactUrl(new URL(token_url))}`;
    const answer = await this.fetch(token_url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: body.toString(),
    });
    const text = (await answer.text()).slice(0, MAX_TOKEN_ANSWER);
    if (answer.status === 401) throw new Error(`${where}: invalid service account credentials (401)`);
    if (!answer.ok) throw new Error(`${where} answered ${answer.status}`);
    let parsed: { access_token?: unknown; expires_in?: unknown };
    try {
      parsed = JSON.parse(text) as typeof parsed;
    } catch {
      throw new Error(`${where} did not answer JSON`);
    }
    const value = parsed.access_token;
    if (typeof value !== 'string' || !/^[\x21-\x7e]+$/.test(value))
      throw new Error(`${where}: no usable access_token in its answer`);
    const expiresIn =
      typeof parsed.expires_in === 'number' && parsed.expires_in > 0 ? parsed.expires_in : 3600;
    const refreshAt = Date.now() + (expiresIn - this.config.token_cache_buffer_seconds) * 1000;
    this.token = { value, refreshAt };
    return value;
  }
}

/** NAT's `api_key` provider: `Authorization: Bearer <key>`, `X-API-Key: <key>`, or `<name>: <prefix> <key>`. */
function apiKeyHeaders(config: ApiKeyAuthConfig): HeaderAuth {
  const headers: Record<string, string> =
    config.auth_scheme === 'Bearer'
      ? { authorization: `Bearer ${config.raw_key}` }
      : config.auth_scheme === 'X-API-Key'
        ? { 'x-api-key': config.raw_key }
        : { [config.custom_header_name!.toLowerCase()]: `${config.custom_header_prefix} ${config.raw_key}` };
  return { headers: () => Promise.resolve(headers), rejected: () => undefined };
}

export function headerAuth(config: HeaderAuthConfig, outbound: OutboundPolicy): HeaderAuth {
  return config instanceof ApiKeyAuthConfig ? apiKeyHeaders(config) : new ClientCredentials(config, outbound);
}

/** A `fetch` whose requests carry the provider's headers; a 401 makes the next one fetch new credentials. */
export function authorizedFetch(base: typeof fetch, auth: HeaderAuth): typeof fetch {
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await auth.headers())) headers.set(name, value);
    const answer = await base(input, { ...init, headers });
    if (answer.status === 401) auth.rejected();
    return answer;
  };
}
