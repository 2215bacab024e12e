import type { Server } from 'node:http';
import {
  Injectable,
  type BeforeApplicationShutdown,
  type OnApplicationShutdown,
  type OnModuleDestroy,
} from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Request } from 'express';

/**
 * Requests whose response has not closed yet. Every request passes here, so it costs an array write
 * each way: a request takes a free slot and gives it back (a Map keyed by the request cost a request
 * about 1 µs of hashing).
 */
export class InFlightRequests {
  private readonly requests: (Request | undefined)[] = [];
  private readonly started: number[] = [];
  private readonly free: number[] = [];

  /** Returns the request's slot, for `delete`. */
  add(req: Request, started: number): number {
    const slot = this.free.pop() ?? this.requests.length;
    this.requests[slot] = req;
    this.started[slot] = started;
    return slot;
  }

  delete(slot: number): void {
    this.requests[slot] = undefined;
    this.free.push(slot);
  }

  /** The `limit` oldest as "POST /v1/workflow (44.1 s)", then how many more. */
  describe(now: number, limit = 10): string[] {
    const open = this.requests.flatMap((req, slot) => (req ? [{ req, started: this.started[slot] }] : []));
    open.sort((a, b) => a.started - b.started);
    const lines = open
      .slice(0, limit)
      .map(
        ({ req, started }) => `${req.method} ${req.originalUrl} (${((now - started) / 1000).toFixed(1)} s)`,
      );
    if (open.length > limit) lines.push(`and ${open.length - limit} more`);
    return lines;
  }
}

/**
 * What still holds a stopping server open, for the line written when `general.shutdown_grace_seconds`
 * runs out: how far Nest's shutdown hooks got, whether the port is closed, the requests still in
 * flight, and the kinds of handle Node still waits on. An operator (or a failing test) reads there why
 * the process had to be ended by its timer instead of a guess.
 */
@Injectable()
export class ShutdownReport implements OnModuleDestroy, BeforeApplicationShutdown, OnApplicationShutdown {
  readonly requests = new InFlightRequests();
  private stage = 'running';

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  onModuleDestroy(): void {
    this.stage = 'module-destroy hooks';
  }

  beforeApplicationShutdown(): void {
    this.stage = 'before-shutdown hooks (executions handed over, jobs and streams ended)';
  }

  onApplicationShutdown(): void {
    this.stage = 'shutdown hooks (database and Redis closing)';
  }

  async describe(now = performance.now()): Promise<string> {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as Server | undefined;
    // A connection can outlive its request: one answered before its body arrived waits for the rest.
    const connections = await new Promise<number>((done) =>
      server ? server.getConnections((err, n) => done(err ? 0 : n)) : done(0),
    );
    const handles = new Map<string, number>();
    for (const kind of process.getActiveResourcesInfo()) handles.set(kind, (handles.get(kind) ?? 0) + 1);
    const requests = this.requests.describe(now);
    // Nest closes the port between the before-shutdown hooks and the shutdown hooks, then waits for
    // the requests in flight to end.
    const closing = server && !server.listening && this.stage.startsWith('before-shutdown');
    return [
      `reached: ${closing ? 'HTTP server closing (waiting for its requests in flight)' : this.stage}`,
      `HTTP port: ${server?.listening ? 'still listening' : 'closed'}, ${connections} connection(s) open`,
      `requests in flight: ${requests.length ? requests.join(', ') : 'none'}`,
      `handles: ${[...handles].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none'}`,
    ].join('; ');
  }
}
