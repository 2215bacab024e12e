import type { Server } from 'node:http';
import { Injectable, type OnModuleDestroy } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { NextFunction, Request, Response } from 'express';
import type { ReadinessService } from './readiness.service';

/**
 * From the start of a shutdown (SIGTERM), every response tells its client to close the connection.
 * Keep-alive clients and proxies then reconnect, to another replica once this one stops listening,
 * instead of keeping this one open with request after request until its grace period runs out.
 */
export function closeConnectionsWhileStopping(readiness: ReadinessService) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    if (readiness.stopping) res.setHeader('Connection', 'close');
    next();
  };
}

/**
 * At the start of a shutdown: idle keep-alive connections are closed, and a response that was already
 * under way (admitted before the shutdown, so without `Connection: close`) leaves its connection idle
 * for a millisecond rather than `keepAliveTimeout` (5 s), which would hold `server.close()` and the
 * process open past `general.shutdown_grace_seconds`.
 */
@Injectable()
export class ConnectionDrain implements OnModuleDestroy {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleDestroy(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    if (!server || typeof server.closeIdleConnections !== 'function') return;
    server.keepAliveTimeout = 1;
    server.closeIdleConnections();
  }
}
