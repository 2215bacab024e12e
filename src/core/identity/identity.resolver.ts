import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { parse as parseCookies } from 'cookie';
import { ServerConfig } from '../../config/server-config';
import { AppError, ErrorCode } from '../errors/app-error';
import { ANONYMOUS, type Identity } from './identity';
import { invalidToken, JwtVerifier, looksLikeJwt } from './jwt-verifier';
import { natUserId } from './user-id';

export const SESSION_COOKIE = 'nat-session';

/**
 * Who is asking, from the headers of a request or a WebSocket handshake. Order as NeMo Agent Toolkit:
 * the `nat-session` cookie, then `Authorization` (Bearer JWT, Bearer API key, Basic), then `X-API-Key`.
 */
@Injectable()
export class IdentityResolver {
  private readonly jwt: JwtVerifier;

  constructor(config: ServerConfig) {
    this.jwt = new JwtVerifier(config.general.auth.jwt);
  }

  /**
   * Synchronous for everything but a JWT, whose verification may fetch keys: most requests then cost
   * no promise at all. Throws (or rejects) with a 401 AppError for a credential it refuses.
   */
  resolve(headers: IncomingHttpHeaders): Identity | Promise<Identity> {
    const session =
      typeof headers.cookie === 'string' ? parseCookies(headers.cookie)[SESSION_COOKIE] : undefined;
    if (session) return { userId: natUserId(session), source: 'cookie', claims: {} };

    const authorization = headers.authorization;
    if (authorization) {
      const [scheme, ...rest] = authorization.trim().split(/\s+/);
      const credentials = rest.join(' ');
      if (/^bearer$/i.test(scheme) && credentials) {
        if (!looksLikeJwt(credentials))
          return { userId: natUserId(credentials), source: 'api_key', claims: {} };
        return this.fromJwt(credentials);
      }
      if (/^basic$/i.test(scheme) && credentials) {
        return { userId: natUserId(credentials), source: 'basic', claims: {} };
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
    if (typeof apiKey === 'string' && apiKey !== '')
      return { userId: natUserId(apiKey), source: 'api_key', claims: {} };
    return ANONYMOUS;
  }

  private async fromJwt(token: string): Promise<Identity> {
    const claims = await this.jwt.verify(token);
    const key = [claims.sub, claims.email, claims.preferred_username].find(
      (v): v is string => typeof v === 'string' && v !== '',
    );
    if (!key) throw invalidToken('The token names no user: it needs sub, email or preferred_username');
    return { userId: natUserId(key), source: 'jwt', claims: { ...claims } };
  }
}
