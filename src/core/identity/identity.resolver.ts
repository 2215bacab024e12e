import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { parse as parseCookies } from 'cookie';
import { AuthConfig, type IdentitySource } from './auth.config';
import { AppError, ErrorCode } from '../errors/app-error';
import { ConfiguredCredentials } from './configured-credentials';
import { ANONYMOUS, type Identity } from './identity';
import { invalidToken, JwtVerifier, looksLikeJwt } from './jwt-verifier';
import { natUserId, unverifiedUserId } from './user-id';

/**
 * Asserted: nothing is verified, so whoever sends a session or key is that user (NeMo Agent Toolkit's
 * model, for a server behind a gateway that sets them). Verified: a JWT key, api_keys or basic_users
 * are configured, and only what was checked names a user unless the operator lists more.
 */
export type TrustMode = 'asserted' | 'verified';

/** Credentials a client presents in a message rather than in headers. */
export interface PresentedCredentials {
  method: 'jwt' | 'api_key' | 'basic';
  token?: string;
  username?: string;
  password?: string;
}

/** The sources that are checked against something the operator configured. */
function verifiedSources(auth: AuthConfig, credentials: ConfiguredCredentials): IdentitySource[] {
  const jwt = auth.jwt;
  const sources: IdentitySource[] = [];
  if (jwt && jwt.verify !== false && (jwt.secret || jwt.public_key || jwt.jwks_url)) sources.push('jwt');
  if (credentials.hasApiKeys) sources.push('api_key');
  if (credentials.hasBasicUsers) sources.push('basic');
  return sources;
}

/** The trust mode a `general.auth` section gives (see TrustMode). */
export function trustModeOf(auth: AuthConfig): TrustMode {
  const jwt = auth.jwt;
  const verifiedJwt = jwt && jwt.verify !== false && (jwt.secret || jwt.public_key || jwt.jwks_url);
  return verifiedJwt || auth.api_keys.length > 0 || auth.basic_users.length > 0 ? 'verified' : 'asserted';
}

/** `general.auth.anonymous_oauth`, or its default for the trust mode. */
export function anonymousOAuthAllowed(auth: AuthConfig): boolean {
  return auth.anonymous_oauth ?? trustModeOf(auth) === 'asserted';
}

/**
 * Who is asking, from the headers of a request or a WebSocket handshake. Asserted identity reads them
 * in NeMo Agent Toolkit's order (session cookie, Authorization, X-API-Key); verified identity reads
 * Authorization and X-API-Key first, and a credential there decides alone: a cookie never overrides
 * or rescues it.
 */
@Injectable()
export class IdentityResolver {
  readonly mode: TrustMode;
  /** The sources that identify a caller (`general.auth.sources`, or the mode's default). */
  readonly sources: ReadonlySet<IdentitySource>;
  private readonly verified: ReadonlySet<IdentitySource>;
  private readonly jwt: JwtVerifier;
  private readonly credentials: ConfiguredCredentials;
  private readonly cookieNames: string[];

  constructor(auth: AuthConfig) {
    this.jwt = new JwtVerifier(auth.jwt);
    this.credentials = new ConfiguredCredentials(auth.api_keys, auth.basic_users, auth.basic_limits);
    this.cookieNames = auth.session_cookies;
    const verified = verifiedSources(auth, this.credentials);
    this.verified = new Set(verified);
    this.mode = verified.length > 0 ? 'verified' : 'asserted';
    this.sources = new Set(
      auth.sources ?? (this.mode === 'verified' ? verified : ['cookie', 'jwt', 'api_key', 'basic']),
    );
  }

  /**
   * Synchronous for everything but a JWT or Basic check, which may fetch keys or hash: most requests
   * then cost no promise at all. Throws (or rejects) with a 401 AppError for a credential it refuses.
   * `session` is the WebSocket's `?session=`, read as a session cookie the handshake did not carry;
   * `address` the client's (trust_proxy applied), which Basic failures count against.
   */
  resolve(headers: IncomingHttpHeaders, session?: string, address?: string): Identity | Promise<Identity> {
    const cookie = this.sessionCookie(headers) ?? (session || undefined);
    if (this.mode === 'asserted') {
      if (cookie !== undefined && this.sources.has('cookie')) return this.unverified('cookie', cookie);
      return this.fromHeaders(headers, address) ?? ANONYMOUS;
    }
    const presented = this.fromHeaders(headers, address);
    if (presented) return presented;
    if (cookie !== undefined && this.sources.has('cookie')) return this.unverified('cookie', cookie);
    return ANONYMOUS;
  }

  /**
   * Credentials sent after the handshake (the WebSocket's auth_message): the same rules as the headers
   * they stand for. A kind of credential the server does not accept is an error, not anonymity.
   */
  async fromCredentials(
    credentials: PresentedCredentials,
    address?: string,
  ): Promise<Identity | { error: string }> {
    const { method, token = '', username = '', password = '' } = credentials;
    if (method === 'jwt' && !looksLikeJwt(token)) return { error: 'The token is not a JWT' };
    const headers: IncomingHttpHeaders =
      method === 'jwt'
        ? { authorization: `Bearer ${token}` }
        : method === 'api_key'
          ? { 'x-api-key': token }
          : { authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}` };
    let identity: Identity;
    try {
      identity = await this.resolve(headers, undefined, address);
    } catch (err) {
      return { error: err instanceof AppError ? err.message : 'The credentials could not be checked' };
    }
    if (identity.userId === null) {
      return { error: `This server does not accept ${method} credentials (see general.auth.sources)` };
    }
    return identity;
  }

  /** The first configured session cookie the request carries. */
  private sessionCookie(headers: IncomingHttpHeaders): string | undefined {
    if (typeof headers.cookie !== 'string') return undefined;
    const cookies = parseCookies(headers.cookie);
    for (const name of this.cookieNames) {
      const value = cookies[name];
      if (value) return value;
    }
    return undefined;
  }

  /** The identity that `Authorization` or `X-API-Key` gives; undefined when neither was sent. */
  private fromHeaders(
    headers: IncomingHttpHeaders,
    address: string | undefined,
  ): Identity | Promise<Identity> | undefined {
    const authorization = headers.authorization;
    if (authorization) {
      const [scheme, ...rest] = authorization.trim().split(/\s+/);
      const credentials = rest.join(' ');
      if (/^bearer$/i.test(scheme) && credentials) {
        if (looksLikeJwt(credentials) && (this.sources.has('jwt') || !this.sources.has('api_key'))) {
          return this.sources.has('jwt') ? this.fromJwt(credentials) : ANONYMOUS;
        }
        return this.fromApiKey(credentials);
      }
      if (/^basic$/i.test(scheme) && credentials) {
        if (!this.sources.has('basic')) return ANONYMOUS;
        return this.credentials.hasBasicUsers
          ? this.credentials.basic(credentials, address)
          : this.unverified('basic', credentials);
      }
      throw new AppError(
        ErrorCode.Unauthorized,
        `Unsupported Authorization scheme "${scheme}": use Bearer or Basic`,
        {
          headers: { 'WWW-Authenticate': 'Bearer' },
        },
      );
    }
    const apiKey = headers['x-api-key'];
    if (typeof apiKey === 'string' && apiKey !== '') return this.fromApiKey(apiKey);
    return undefined;
  }

  private fromApiKey(key: string): Identity {
    if (!this.sources.has('api_key')) return ANONYMOUS;
    return this.credentials.hasApiKeys ? this.credentials.apiKey(key) : this.unverified('api_key', key);
  }

  /**
   * A caller named by a source nothing checks. Under asserted identity that is NeMo Agent Toolkit's
   * id; beside verified sources its ids live in a namespace of their own.
   */
  private unverified(source: IdentitySource, key: string): Identity {
    const userId = this.mode === 'asserted' ? natUserId(key) : unverifiedUserId(source, key);
    return { userId, source, claims: {} };
  }

  private async fromJwt(token: string): Promise<Identity> {
    const claims = await this.jwt.verify(token);
    const key = [claims.sub, claims.email, claims.preferred_username].find(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    if (!key) throw invalidToken('The token names no user: it needs sub, email or preferred_username');
    // JWT subjects keep NeMo Agent Toolkit's ids when their signature was checked.
    const verified = this.verified.has('jwt');
    const userId = this.mode === 'asserted' || verified ? natUserId(key) : unverifiedUserId('jwt', key);
    return { userId, source: 'jwt', claims: { ...claims }, verified };
  }
}
