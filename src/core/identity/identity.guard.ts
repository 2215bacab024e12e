import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode } from '../errors/app-error';
import { addressOf } from '../http/connection-caps';
import { AuthConfig } from './auth.config';
import type { Identity } from './identity';
import { IdentityResolver } from './identity.resolver';
import { IS_PUBLIC } from './public.decorator';

type IdentifiedRequest = IncomingMessage & { identity?: Identity };

/**
 * Who is asking, for every HTTP route: resolves the caller's identity (session cookie, JWT, API key,
 * Basic) and puts it on the request, where `@CurrentIdentity()`, the logs and the monitoring read it.
 * A credential that fails is refused in the route's own error shape; an anonymous caller is refused
 * when `general.auth.require_identity` is on, unless the route is `@Public()`. The WebSocket gateway
 * identifies each connection at its handshake with the same resolver.
 */
@Injectable()
export class IdentityGuard implements CanActivate {
  constructor(
    private readonly resolver: IdentityResolver,
    private readonly auth: AuthConfig,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const req = context.switchToHttp().getRequest<IdentifiedRequest>();
    const resolved = this.resolver.resolve(req.headers, undefined, addressOf(req));
    // Most credentials resolve at once: no promise, no extra tick.
    if (!(resolved instanceof Promise)) return this.admit(context, req, resolved);
    return resolved.then((identity) => this.admit(context, req, identity));
  }

  private admit(context: ExecutionContext, req: IdentifiedRequest, identity: Identity): boolean {
    req.identity = identity;
    // The metadata is read only for the callers it could turn away.
    if (identity.userId === null && this.auth.require_identity && !this.isPublic(context)) {
      throw new AppError(
        ErrorCode.Unauthorized,
        `This server requires you to identify yourself (accepted: ${[...this.resolver.sources].join(', ')})`,
        { headers: { 'WWW-Authenticate': 'Bearer' } },
      );
    }
    return true;
  }

  private isPublic(context: ExecutionContext): boolean {
    return (
      this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
        context.getHandler(),
        context.getClass(),
      ]) === true
    );
  }
}
