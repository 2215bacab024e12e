import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
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
 * At the start of a shutdown: idle keep-alive connections are closed, and so are connections a client
 * opened and never sent a request on (a pool's spare one): Node counts those as neither idle nor done,
 * so they would hold `server.close()` until `headersTimeout` passes. A response that was already under
 * way (admitted before the shutdown, so without `Connection: close`) leaves its connection idle for a
 * millisecond rather than `keep_alive_seconds`, which would hold the process open past
 * `general.shutdown_grace_seconds`.
 */
@Injectable()
export class ConnectionDrain implements OnApplicationBootstrap, OnModuleDestroy {
  /** The server's open connections (a set only while it runs: Node does not list them). */
  private readonly connections = new Set<Socket>();

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onApplicationBootstrap(): void {
    this.server()?.on('connection', (socket: Socket) => {
      this.connections.add(socket);
      socket.once('close', () => this.connections.delete(socket));
    });
  }

  onModuleDestroy(): void {
    const server = this.server();
    if (!server || typeof server.closeIdleConnections !== 'function') return;
    server.keepAliveTimeout = 1;
    server.closeIdleConnections();
    for (const socket of this.connections) if (socket.bytesRead === 0) socket.destroy();
  }

  private server(): Server | undefined {
    return this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
  }
}
