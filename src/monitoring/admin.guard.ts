import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { Identity } from '../core/identity/identity';

function roles(identity: Identity): string[] {
  const { roles: r, groups } = identity.claims as { roles?: unknown; groups?: unknown };
  return [r, groups].flatMap((v) => (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []));
}

/** `general.auth.admin` (user ids, or `role:<name>` for a JWT role or group): who may read operator routes. */
@Injectable()
export class AdminGuard implements CanActivate {
  constructor(private readonly config: ServerConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const admins = this.config.general.auth.admin;
    if (!admins || admins.length === 0) return true;
    const identity = context.switchToHttp().getRequest<{ identity?: Identity }>().identity;
    if (!identity?.userId) {
      throw new AppError(ErrorCode.Unauthorized, 'Only administrators may read this; identify yourself', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    const mine = roles(identity);
    const allowed = admins.some((a) =>
      a.startsWith('role:') ? mine.includes(a.slice(5)) : a === identity.userId,
    );
    if (!allowed) throw new AppError(ErrorCode.Forbidden, 'Only administrators may read this');
    return true;
  }
}
