import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { Observable } from 'rxjs';
import type { Identity } from '../core/identity/identity';
import { MetricsService } from './metrics.service';
import { UserActivityService } from './user-activity.service';

/** Routes that are about the server rather than its users: not counted as user activity. */
const OPERATIONAL = /^\/(health|metrics|monitor|docs|openapi\.json)(\/|$|-)/;

/**
 * Counts every routed request when its response closes, so a stream counts until it ends: latency
 * and status for /metrics, and per identified user for /monitor/users.
 */
@Injectable()
export class RequestTrackingInterceptor implements NestInterceptor {
  constructor(
    private readonly metrics: MetricsService,
    private readonly activity: UserActivityService,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { identity?: Identity; route?: { path?: string } }>();
    const res = http.getResponse<Response>();
    const started = performance.now();
    const route = String(req.route?.path ?? 'unmatched');
    const userId = OPERATIONAL.test(req.path) ? null : (req.identity?.userId ?? null);
    if (userId) this.activity.begin(userId);
    res.once('close', () => {
      const ms = performance.now() - started;
      // A response closed before it finished (a client that left) is recorded as 499, as proxies do.
      const status = res.writableFinished ? res.statusCode : 499;
      this.metrics.httpRequests.inc({ route, method: req.method, status: String(status) });
      this.metrics.httpDuration.observe({ route, method: req.method }, ms / 1000);
      if (userId) this.activity.end(userId, ms, status >= 400);
    });
    return next.handle();
  }
}
