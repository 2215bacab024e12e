/**
 * A real OAuth 2.0 / OpenID Connect authorization server for tests: `oidc-provider` running in-process on
 * 127.0.0.1 (ephemeral port, plain http), with its own login/consent interaction pages, a protected resource
 * that validates the provider's opaque access tokens in-process, and a scripted browser that drives the
 * authorization code flow with cookies.
 *
 * Nothing here reaches the network beyond the loopback server it starts.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Adapter, AdapterPayload, Configuration, JWK, KoaContextWithOIDC } from 'oidc-provider';
import type ProviderClass from 'oidc-provider';

export interface TestClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  /** Default: authorization_code and refresh_token. `client_credentials` makes it a service account. */
  grant_types?: string[];
}

export interface TokenRequestLog {
  grant_type: string;
  /** Whether the request carried a `code_verifier`. */
  code_verifier: boolean;
  /** `client_secret_basic`, `client_secret_post`, or `none` (no client secret presented). */
  client_auth: string;
  /** HTTP status the token endpoint answered with. */
  status: number;
}

export interface IssuedTokens {
  sub: string;
  access_token: string;
  refresh_token?: string;
}

export interface ResourceCallLog {
  /** The bearer token received (empty string when none was sent). */
  token: string;
  /** The token's subject, or null when the token was missing, unknown or expired (the call got 401). */
  sub: string | null;
}

export interface RegistrationLog {
  client_id: string;
  client_secret?: string;
  client_name?: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
}

export interface InteractionLog {
  /** The interaction page the provider sent the browser to: `login` or `consent`. */
  prompt: string;
  client_id: string;
}

export interface AuthServer {
  /** e.g. http://127.0.0.1:PORT (discovery at /.well-known/openid-configuration). */
  issuer: string;
  /** The provider's authorization endpoint. */
  authorizationUrl: string;
  /** The token endpoint. */
  tokenUrl: string;
  /**
   * A client credentials grant's token (what a service account sends): its client and scope while it is
   * valid, undefined for any other string.
   */
  serviceToken(token: string): Promise<{ client_id: string; scope: string } | undefined>;
  /**
   * An authorization code grant's access token (what a protected API checks): its subject, client, scope
   * and expiry (epoch seconds) while it is valid, undefined for any other string.
   */
  accessToken(
    token: string,
  ): Promise<{ sub: string; client_id: string; scope: string; expiresAt: number } | undefined>;
  /** GET, a protected API: 200 {sub, scope, client_id} for a valid Bearer access token, 401 otherwise. */
  resourceUrl: string;
  /** What happened, for assertions. */
  log: {
    tokenRequests: TokenRequestLog[];
    issued: IssuedTokens[];
    resourceCalls: ResourceCallLog[];
    /** Interaction pages shown to the scripted browser (a flow that skips consent adds none). */
    interactions: InteractionLog[];
    /** Clients that registered themselves (RFC 7591), when `registration` is on. */
    registrations: RegistrationLog[];
  };
  /**
   * Plays the user's browser: GET authUrl, log in as `user` (any username is accepted; the account id is the
   * username), then approve (or deny: the provider then redirects with error=access_denied) the consent,
   * following the provider's interaction pages and redirects with cookies, until the provider redirects to the
   * client's redirect_uri. Returns that final redirect URL (not followed).
   * Each user has their own cookie jar, so a second flow for the same user reuses the provider session and
   * the earlier grant: no login, no consent page, just the redirect.
   */
  authorize(authUrl: string, user: string, options?: { deny?: boolean }): Promise<string>;
  close(): Promise<void>;
}

export interface AuthServerOptions {
  clients: TestClient[];
  /** Access token lifetime (default 3600). */
  accessTokenTtlSeconds?: number;
  /** Require PKCE (S256) for every client (default true). When false, no client needs it. */
  requirePkce?: boolean;
  /** Scopes accepted besides openid, offline_access, profile and email (default ['read:calendar']). */
  scopes?: string[];
  /** Open dynamic client registration at /reg (RFC 7591, no initial access token). Default false. */
  registration?: boolean;
}

type ProviderInstance = InstanceType<typeof ProviderClass>;

const BASE_SCOPES = ['openid', 'offline_access', 'profile', 'email'];

let providerModule: Promise<typeof ProviderClass> | undefined;

/**
 * Loads oidc-provider once. It warns at import time that Node 20 is not a supported LTS (it works): that single
 * line is filtered out, everything else reaches the console untouched.
 */
function loadProvider(): Promise<typeof ProviderClass> {
  providerModule ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes('oidc-provider WARNING: Unsupported runtime'))
        return;
      warn(...args);
    };
    try {
      return (await import('oidc-provider')).default;
    } finally {
      console.warn = warn;
    }
  })();
  return providerModule;
}

let signingKey: JWK | undefined;

/** One RSA key per test process (RS256 is the default ID token algorithm). */
function rsaSigningKey(): JWK {
  if (!signingKey) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    signingKey = {
      ...(privateKey.export({ format: 'jwk' }) as JWK),
      kid: 'test-rs256',
      use: 'sig',
      alg: 'RS256',
    };
  }
  return signingKey;
}

/** A small in-memory adapter (oidc-provider's own one warns loudly and is shared between providers). */
function memoryAdapterFactory(): (name: string) => Adapter {
  const store = new Map<string, { payload: AdapterPayload; expiresAt: number }>();
  const alive = (key: string): AdapterPayload | undefined => {
    const entry = store.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      store.delete(key);
      return undefined;
    }
    return entry.payload;
  };
  const findBy = (name: string, field: 'uid' | 'userCode', value: string): AdapterPayload | undefined => {
    for (const key of store.keys()) {
      if (!key.startsWith(`${name}:`)) continue;
      const payload = alive(key);
      if (payload?.[field] === value) return payload;
    }
    return undefined;
  };
  return (name: string): Adapter => ({
    async upsert(id, payload, expiresIn) {
      const expiresAt = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
      store.set(`${name}:${id}`, { payload, expiresAt });
    },
    async find(id) {
      return alive(`${name}:${id}`);
    },
    async findByUid(uid) {
      return findBy(name, 'uid', uid);
    },
    async findByUserCode(userCode) {
      return findBy(name, 'userCode', userCode);
    },
    async consume(id) {
      const payload = alive(`${name}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    },
    async destroy(id) {
      store.delete(`${name}:${id}`);
    },
    async revokeByGrantId(grantId) {
      for (const [key, entry] of store) {
        if (entry.payload.grantId === grantId) store.delete(key);
      }
    },
  });
}

const escapeHtml = (s: string): string =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

const unescapeHtml = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
}

/** The provider's interaction pages: a login form, then a consent page with an approve and a deny form. */
async function handleInteraction(
  provider: ProviderInstance,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  log: InteractionLog[],
): Promise<void> {
  const match = /^\/interaction\/([^/]+)(?:\/(login|confirm|abort))?$/.exec(path);
  if (!match) return sendHtml(res, 404, page('Not found', ''));
  const [, uid, action] = match;
  const details = await provider.interactionDetails(req, res);
  if (details.uid !== uid) return sendHtml(res, 400, page('Interaction mismatch', ''));
  const clientId = String(details.params.client_id);

  if (!action && req.method === 'GET') {
    const prompt = details.prompt.name;
    log.push({ prompt, client_id: clientId });
    const base = `/interaction/${escapeHtml(uid)}`;
    if (prompt === 'login') {
      return sendHtml(
        res,
        200,
        page(
          'Sign in',
          `<form method="post" action="${base}/login">` +
            '<input type="text" name="login" value="" autofocus>' +
            '<input type="password" name="password" value="">' +
            '<button type="submit">Sign in</button></form>' +
            `<form method="post" action="${base}/abort"><button type="submit">Cancel</button></form>`,
        ),
      );
    }
    const scopes = String(details.params.scope ?? '');
    return sendHtml(
      res,
      200,
      page(
        'Authorize',
        `<p>${escapeHtml(clientId)} asks for: ${escapeHtml(scopes)}</p>` +
          `<form method="post" action="${base}/confirm"><button type="submit">Allow</button></form>` +
          `<form method="post" action="${base}/abort"><button type="submit">Deny</button></form>`,
      ),
    );
  }
  if (req.method !== 'POST') return sendHtml(res, 405, page('Method not allowed', ''));
  const form = new URLSearchParams(await readBody(req));

  if (action === 'login') {
    const accountId = form.get('login')?.trim();
    if (!accountId) return sendHtml(res, 400, page('Username required', ''));
    return provider.interactionFinished(
      req,
      res,
      { login: { accountId } },
      { mergeWithLastSubmission: false },
    );
  }
  if (action === 'abort') {
    return provider.interactionFinished(
      req,
      res,
      { error: 'access_denied', error_description: 'End-User aborted interaction' },
      { mergeWithLastSubmission: false },
    );
  }
  // confirm: grant what the consent prompt says is missing.
  const accountId = details.session?.accountId;
  if (!accountId) return sendHtml(res, 400, page('No session', ''));
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId, clientId });
  if (!grant) return sendHtml(res, 400, page('Grant not found', ''));
  const missing = details.prompt.details as {
    missingOIDCScope?: string[];
    missingOIDCClaims?: string[];
    missingResourceScopes?: Record<string, string[]>;
  };
  if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
  if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  return provider.interactionFinished(
    req,
    res,
    { consent: details.grantId ? {} : { grantId } },
    { mergeWithLastSubmission: true },
  );
}

/** The protected API: validates the opaque access token through the provider itself. */
async function handleResource(
  provider: ProviderInstance,
  req: IncomingMessage,
  res: ServerResponse,
  log: ResourceCallLog[],
): Promise<void> {
  const header = req.headers.authorization ?? '';
  const token = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim() ?? '';
  const at = token ? await provider.AccessToken.find(token) : undefined;
  const sub = at && !at.isExpired ? at.accountId : null;
  log.push({ token, sub });
  if (!at || !sub) {
    return sendJson(
      res,
      401,
      { error: 'invalid_token' },
      { 'www-authenticate': token ? 'Bearer error="invalid_token"' : 'Bearer' },
    );
  }
  return sendJson(res, 200, { sub, scope: at.scope ?? '', client_id: at.clientId });
}

interface StoredCookie {
  name: string;
  value: string;
  path: string;
  expiresAt: number;
}

/** A cookie jar for one host: honours Path, Expires and Max-Age (enough for oidc-provider's cookies). */
class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  store(setCookies: string[], requestPath: string): void {
    for (const line of setCookies) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq < 1) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      let path = requestPath.slice(0, requestPath.lastIndexOf('/')) || '/';
      let expiresAt = Infinity;
      for (const attr of attrs) {
        const [k, ...rest] = attr.trim().split('=');
        const v = rest.join('=');
        const key = k.toLowerCase();
        if (key === 'path' && v.startsWith('/')) path = v;
        else if (key === 'max-age') expiresAt = Date.now() + Number(v) * 1000;
        else if (key === 'expires' && expiresAt === Infinity) expiresAt = Date.parse(v);
      }
      const id = `${name};${path}`;
      if (expiresAt <= Date.now()) this.cookies.delete(id);
      else this.cookies.set(id, { name, value, path, expiresAt });
    }
  }

  header(requestPath: string): string {
    const now = Date.now();
    const matches = (cookiePath: string): boolean =>
      requestPath === cookiePath ||
      (requestPath.startsWith(cookiePath) &&
        (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'));
    return [...this.cookies.values()]
      .filter((c) => c.expiresAt > now && matches(c.path))
      .sort((a, b) => b.path.length - a.path.length)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
}

interface HtmlForm {
  action: string;
  method: string;
  inputs: Map<string, string>;
}

function parseForms(html: string): HtmlForm[] {
  const attr = (tag: string, name: string): string | undefined => {
    const m = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
    return m ? unescapeHtml(m[1] ?? m[2] ?? m[3] ?? '') : undefined;
  };
  const forms: HtmlForm[] = [];
  for (const m of html.matchAll(/(<form\b[^>]*>)([\s\S]*?)<\/form>/gi)) {
    const inputs = new Map<string, string>();
    for (const input of m[2].matchAll(/<input\b[^>]*>/gi)) {
      const name = attr(input[0], 'name');
      if (name) inputs.set(name, attr(input[0], 'value') ?? '');
    }
    forms.push({
      action: attr(m[1], 'action') ?? '',
      method: (attr(m[1], 'method') ?? 'get').toUpperCase(),
      inputs,
    });
  }
  return forms;
}

/** An `authentication:` entry (`oauth2_auth_code_flow`) for one of this server's clients, scope read:calendar. */
export function oauthProvider(
  auth: AuthServer,
  client: { client_id: string; client_secret: string; redirect_uri: string },
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    _type: 'oauth2_auth_code_flow',
    issuer: auth.issuer,
    ...client,
    scopes: ['openid', 'read:calendar'],
    ...extra,
  };
}

/**
 * The config after `general:` for a scripted workflow that fetches this server's API as its user through
 * the provider `calendar` and answers `Hello <subject>`.
 */
export function calendarWorkflowYaml(auth: AuthServer, provider: Record<string, unknown>): string {
  return `authentication:
  calendar: ${JSON.stringify(provider)}
workflow:
  _type: scripted
  steps:
    - fetch: { url: '${auth.resourceUrl}', provider: calendar, save_as: me }
  output: 'Hello {{me.sub}}'
`;
}

export async function startAuthServer(options: AuthServerOptions): Promise<AuthServer> {
  const Provider = await loadProvider();
  const requirePkce = options.requirePkce ?? true;
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 3600;
  const scopes = [...new Set([...BASE_SCOPES, ...(options.scopes ?? ['read:calendar'])])];
  const log: AuthServer['log'] = {
    tokenRequests: [],
    issued: [],
    resourceCalls: [],
    interactions: [],
    registrations: [],
  };

  // The issuer needs the port, so the server listens first and the provider is plugged in once built.
  const ready: { provider?: ProviderInstance; handle?: ReturnType<ProviderInstance['callback']> } = {};
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const fail = (err: unknown): void => {
      if (res.headersSent) return void res.destroy();
      sendHtml(res, 500, page('Test server error', `<pre>${escapeHtml(String(err))}</pre>`));
    };
    const { provider, handle } = ready;
    if (!provider || !handle) return fail(new Error('provider not ready'));
    if (path === '/resource') {
      handleResource(provider, req, res, log.resourceCalls).catch(fail);
    } else if (path.startsWith('/interaction/')) {
      handleInteraction(provider, req, res, path, log.interactions).catch(fail);
    } else {
      void handle(req, res);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;

  const configuration: Configuration = {
    adapter: memoryAdapterFactory(),
    clients: options.clients.map((c) => ({
      client_id: c.client_id,
      ...(c.client_secret !== undefined ? { client_secret: c.client_secret } : {}),
      redirect_uris: c.redirect_uris,
      token_endpoint_auth_method:
        c.token_endpoint_auth_method ?? (c.client_secret ? 'client_secret_basic' : 'none'),
      grant_types: c.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: c.grant_types && !c.grant_types.includes('authorization_code') ? [] : ['code'],
    })),
    jwks: { keys: [rsaSigningKey()] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    scopes,
    claims: {
      openid: ['sub'],
      profile: ['name', 'preferred_username'],
      email: ['email', 'email_verified'],
    },
    findAccount: (_ctx, sub) => ({
      accountId: sub,
      claims: () => ({
        sub,
        name: sub,
        preferred_username: sub,
        email: `${sub}@example.test`,
        email_verified: true,
      }),
    }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      registration: { enabled: options.registration ?? false },
      // A `resource` parameter naming our protected API is honoured (opaque tokens, our scopes).
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: scopes.filter((s) => !BASE_SCOPES.includes(s)).join(' '),
          audience: `${issuer}/resource`,
          accessTokenFormat: 'opaque',
          accessTokenTTL: accessTokenTtl,
        }),
      },
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    pkce: { required: () => requirePkce },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    clientBasedCORS: () => true,
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = page(
        'Authorization server error',
        `<pre id="error">${escapeHtml(out.error)}: ${escapeHtml(out.error_description ?? '')}</pre>`,
      );
    },
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 24 * 3600,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: 24 * 3600,
      ClientCredentials: 600,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
      PreAuthorizedCode: 600,
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.silent = true; // Koa: no stack traces on stderr for errors the provider already answers

  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    await next();
    if (ctx.oidc?.route === 'registration' && ctx.status === 201) {
      const client = ctx.body as Partial<RegistrationLog> & { client_id: string };
      log.registrations.push({
        client_id: client.client_id,
        client_secret: client.client_secret,
        client_name: client.client_name,
        redirect_uris: client.redirect_uris ?? [],
        token_endpoint_auth_method: client.token_endpoint_auth_method,
      });
    }
    if (ctx.oidc?.route !== 'token') return;
    const body = (ctx.oidc.body ?? {}) as Record<string, unknown>;
    const basic = /^basic\s/i.test(ctx.get('authorization'));
    log.tokenRequests.push({
      grant_type: typeof body.grant_type === 'string' ? body.grant_type : '',
      code_verifier: typeof body.code_verifier === 'string' && body.code_verifier.length > 0,
      client_auth: basic ? 'client_secret_basic' : body.client_secret ? 'client_secret_post' : 'none',
      status: ctx.status,
    });
    const response = ctx.body as { access_token?: string; refresh_token?: string } | undefined;
    if (ctx.status === 200 && response?.access_token) {
      const at = ctx.oidc.entities.AccessToken;
      log.issued.push({
        sub: at?.accountId ?? '',
        access_token: response.access_token,
        ...(response.refresh_token ? { refresh_token: response.refresh_token } : {}),
      });
    }
  });

  Object.assign(ready, { provider, handle: provider.callback() });

  const redirectUris = options.clients.flatMap((c) => c.redirect_uris);
  const jars = new Map<string, CookieJar>();

  async function authorize(authUrl: string, user: string, opts: { deny?: boolean } = {}): Promise<string> {
    let jar = jars.get(user);
    if (!jar) jars.set(user, (jar = new CookieJar()));
    let url = new URL(authUrl);
    let method = 'GET';
    let body: string | undefined;
    for (let step = 0; step < 20; step++) {
      const res = await fetch(url, {
        method,
        redirect: 'manual',
        headers: {
          accept: 'text/html',
          cookie: jar.header(url.pathname),
          ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body,
      });
      jar.store(res.headers.getSetCookie(), url.pathname);
      if (res.status >= 300 && res.status < 400) {
        await res.arrayBuffer();
        const location = res.headers.get('location');
        if (!location) throw new Error(`authorize: ${res.status} without Location at ${url.href}`);
        const next = new URL(location, url);
        const target = `${next.origin}${next.pathname}`;
        if (next.origin !== issuer || redirectUris.includes(target)) return next.href;
        url = next;
        method = 'GET';
        body = undefined;
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) {
        throw new Error(`authorize: ${res.status} at ${url.href}: ${html.replace(/<[^>]+>/g, ' ').trim()}`);
      }
      const forms = parseForms(html);
      const login = forms.find((f) => f.inputs.has('login'));
      const form = login ?? forms.find((f) => f.action.endsWith(opts.deny ? '/abort' : '/confirm'));
      if (!form) throw new Error(`authorize: no form to submit at ${url.href}: ${html}`);
      const fields = new URLSearchParams([...form.inputs]);
      if (login) {
        fields.set('login', user);
        fields.set('password', 'secret');
      }
      url = new URL(form.action || url.href, url);
      method = form.method;
      if (method === 'POST') {
        body = fields.toString();
      } else {
        for (const [k, v] of fields) url.searchParams.set(k, v);
        body = undefined;
      }
    }
    throw new Error(`authorize: too many steps for ${authUrl}`);
  }

  return {
    issuer,
    authorizationUrl: `${issuer}/auth`,
    tokenUrl: `${issuer}/token`,
    resourceUrl: `${issuer}/resource`,
    serviceToken: async (token) => {
      const found = token ? await provider.ClientCredentials.find(token) : undefined;
      return found && !found.isExpired
        ? { client_id: found.clientId ?? '', scope: found.scope ?? '' }
        : undefined;
    },
    accessToken: async (token) => {
      const found = token ? await provider.AccessToken.find(token) : undefined;
      return found && !found.isExpired && found.accountId
        ? {
            sub: found.accountId,
            client_id: found.clientId ?? '',
            scope: found.scope ?? '',
            expiresAt: found.exp ?? Math.floor(Date.now() / 1000) + 60,
          }
        : undefined;
    },
    log,
    authorize,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
