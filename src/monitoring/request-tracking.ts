import type { NextFunction, Request, Response } from 'express';
import type { Identity } from '../core/identity/identity';
import type { MetricsService } from './metrics.service';
import type { UserActivityService } from './user-activity.service';

/** Routes that are about the server rather than its users: not counted as user activity. */
const OPERATIONAL = /^\/(health|metrics|monitor|docs|openapi\.json)(\/|$|-)/;

type TrackedRequest = Request & { identity?: Identity; route?: { path?: string } };

/**
 * Counts every request when its response closes, so a stream counts until it ends: latency and status
 * by route for /metrics, and per identified user for /monitor/users (when enabled; requests that
 * matched no route are not a user's activity). A plain middleware (after
 * identityMiddleware) rather than an interceptor: Nest's interceptor pipeline costs a request more.
 */
export function requestTracking(metrics: MetricsService, activity?: UserActivityService) {
  return (req: TrackedRequest, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const userId = !activity || OPERATIONAL.test(req.path) ? null : (req.identity?.userId ?? null);
    if (userId) activity?.begin(userId);
    res.once('close', () => {
      const ms = performance.now() - started;
      // A response closed before it finished (a client that left) is recorded as 499, as proxies do.
      const status = res.writableFinished ? res.statusCode : 499;
      const route = req.route?.path;
      metrics.recordRequest(String(route ?? 'unmatched'), req.method, status, ms / 1000);
      if (userId) activity?.end(userId, ms, status >= 400, Date.now(), route !== undefined);
    });
    next();
  };
}
