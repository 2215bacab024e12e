import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { isAdmin } from '../core/identity/admins';
import type { Identity } from '../core/identity/identity';

/**
 * Operator routes are for `general.auth.admin` only. Unlike NeMo Agent Toolkit, an unset list closes
 * them: its uuid5 user ids reverse to the session or key behind them in a dictionary attack.
 */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly config: ServerConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const admins = this.config.general.auth.admin;
    if (!admins?.length) {
      throw new AppError(
        ErrorCode.Forbidden,
        'No administrator is configured: name one in general.auth.admin to read this',
      );
    }
    const identity = context.switchToHttp().getRequest<{ identity?: Identity }>().identity;
    if (!identity?.userId) {
      throw new AppError(ErrorCode.Unauthorized, 'Only administrators may read this; identify yourself', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    if (!isAdmin(identity, admins))
      throw new AppError(ErrorCode.Forbidden, 'Only administrators may read this');
    return true;
  }
}
