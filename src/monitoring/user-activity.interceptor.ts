import type { ServerResponse } from 'node:http';
import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { Identity } from '../core/identity/identity';
import { UserActivityService } from './user-activity.service';

/** Routes that are about the server rather than its users: not counted as user activity. */
const OPERATIONAL = /^\/(health|metrics|monitor|docs|openapi\.json)(\/|$|-)/;

type IdentifiedRequest = { identity?: Identity; path: string };

/**
 * Counts each identified user's requests for /monitor/users (`enable_per_user_monitoring`): from when
 * IdentityGuard knows who asked until the response closes, so a stream is active until it ends.
 * Requests that matched no route reach no interceptor: probing unknown paths leaves no record.
 */
@Injectable()
export class UserActivityInterceptor implements NestInterceptor {
  constructor(private readonly activity: UserActivityService) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'http') return next.handle();
    const http = context.switchToHttp();
    const req = http.getRequest<IdentifiedRequest>();
    const userId = req.identity?.userId;
    if (userId && !OPERATIONAL.test(req.path)) {
      const res = http.getResponse<ServerResponse>();
      const started = performance.now();
      this.activity.begin(userId);
      res.once('close', () => {
        const status = res.writableFinished ? res.statusCode : 499;
        this.activity.end(userId, performance.now() - started, status >= 400);
      });
    }
    return next.handle();
  }
}
