import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { ServerConfig } from '../../config/server-config';
import { AppError, ErrorCode } from '../errors/app-error';
import type { Identity } from './identity';
import { IdentityResolver } from './identity.resolver';

/** Routes that answer whoever asks: liveness and the API description. */
const OPEN_PATHS = [/^\/health(\/|$)/, /^\/docs(\/|$|-)/, /^\/openapi\.json$/];

/** Resolves the caller on every HTTP request and keeps anonymous callers out when identity is required. */
@Injectable()
export class IdentityGuard implements CanActivate {
  constructor(
    private readonly resolver: IdentityResolver,
    private readonly config: ServerConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request & { identity?: Identity }>();
    const identity = await this.resolver.resolve(req.headers);
    req.identity = identity;
    if (
      identity.userId === null &&
      this.config.general.auth.require_identity &&
      !OPEN_PATHS.some((p) => p.test(req.path))
    ) {
      throw new AppError(
        ErrorCode.Unauthorized,
        'This server requires you to identify yourself (a session cookie or a token)',
        {
          headers: { 'WWW-Authenticate': 'Bearer' },
        },
      );
    }
    return true;
  }
}
