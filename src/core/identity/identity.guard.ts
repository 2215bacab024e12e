import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { AppError, ErrorCode } from '../errors/app-error';
import { addressOf } from '../http/connection-caps';
import { AuthConfig } from './auth.config';
import type { Identity } from './identity';
import type { IdentifiedRequest } from './identity.middleware';
import { IdentityResolver } from './identity.resolver';

/** Routes that answer whoever asks: liveness and the API description. */
const OPEN_PATHS = [/^\/health(\/|$)/, /^\/docs(\/|$|-)/, /^\/openapi\.json$/];

/**
 * Reports a credential that failed (resolved by identityMiddleware before routing) and keeps anonymous
 * callers out when identity is required.
 */
@Injectable()
export class IdentityGuard implements CanActivate {
  constructor(
    private readonly resolver: IdentityResolver,
    private readonly auth: AuthConfig,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    // The WebSocket gateway identifies each connection at its handshake (and on auth_message).
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<IdentifiedRequest>();
    if (req.identityError) throw req.identityError;
    if (req.identity) return this.admit(req, req.identity);
    // Resolved here only when the middleware did not run (an app assembled without createApp).
    return Promise.resolve(this.resolver.resolve(req.headers, undefined, addressOf(req))).then((identity) => {
      req.identity = identity;
      return this.admit(req, identity);
    });
  }

  private admit(req: IdentifiedRequest, identity: Identity): boolean {
    if (identity.userId === null && this.auth.require_identity && !OPEN_PATHS.some((p) => p.test(req.path))) {
      throw new AppError(
        ErrorCode.Unauthorized,
        `This server requires you to identify yourself (accepted: ${[...this.resolver.sources].join(', ')})`,
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    return true;
  }
}
