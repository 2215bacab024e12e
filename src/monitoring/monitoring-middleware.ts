import { Injectable } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { RequestMiddleware } from '../core/http/request-middleware';
import { closeConnectionsWhileStopping } from './draining';
import { MetricsService } from './metrics.service';
import { ReadinessService } from './readiness.service';
import { requestTracking } from './request-tracking';
import { ShutdownReport } from './shutdown-report';

/**
 * What monitoring sees of every request before its route, mounted by the composition root after
 * core's middleware (`mountAsOne`): connections closed while the server stops, and each request's
 * route, status and latency for /metrics.
 */
@Injectable()
export class MonitoringMiddleware implements RequestMiddleware {
  readonly handlers: readonly RequestHandler[];
  constructor(metrics: MetricsService, readiness: ReadinessService, shutdown: ShutdownReport) {
    this.handlers = [closeConnectionsWhileStopping(readiness), requestTracking(metrics, shutdown.requests)];
  }
}
