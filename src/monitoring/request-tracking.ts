import type { NextFunction, Request, Response } from 'express';
import type { MetricsService } from './metrics.service';
import type { InFlightRequests } from './shutdown-report';

type TrackedRequest = Request & { route?: { path?: string } };

/**
 * Counts every request when its response closes, so a stream counts until it ends: latency and status
 * by route for /metrics (requests that matched no route as `unmatched`). A middleware rather than an
 * interceptor: it counts the requests no route answers too, and costs a request less. Until then the
 * request is in flight (named if a shutdown outlasts its grace period).
 */
export function requestTracking(metrics: MetricsService, inFlight: InFlightRequests) {
  return (req: TrackedRequest, res: Response, next: NextFunction): void => {
    const started = performance.now();
    const slot = inFlight.add(req, started);
    res.once('close', () => {
      inFlight.delete(slot);
      // A response closed before it finished (a client that left) is recorded as 499, as proxies do.
      const status = res.writableFinished ? res.statusCode : 499;
      metrics.recordRequest(
        String(req.route?.path ?? 'unmatched'),
        req.method,
        status,
        (performance.now() - started) / 1000,
      );
    });
    next();
  };
}
