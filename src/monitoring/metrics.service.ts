import { Inject, Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ConnectionCount } from '../core/connection-count';
import { ExecutionStore } from '../executions/store/execution.store';
import { OAuthService } from '../oauth/oauth.service';
import { ExecutionCounts } from './execution-counts';
import { Database } from '../db/database';
import { DurableRuns } from '../executions/execution-adapters';
import { BackingRedis } from '../redis/backing-redis';
import { dependencyMetrics } from './dependency-metrics';
import { isDependencyOutage } from '../core/errors/dependency-outage';

/** How long a scrape waits for what it reads from the execution store. */
const STORE_READ_MS = 2000;

class StoreSilent extends Error {}

function withinMs<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new StoreSilent(`no answer in ${ms} ms`)), ms);
  });
  promise.catch(() => undefined); // a late failure, once the race is lost, is not unhandled
  return Promise.race([promise, silent]).finally(() => clearTimeout(timer));
}

/**
 * Prometheus metrics, names prefixed `interlude_`, no user ids in labels. One registry per app, so
 * several servers in one process (tests) do not collide.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'interlude_http_requests_total',
    help: 'HTTP requests by route, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'interlude_http_request_duration_seconds',
    help: 'HTTP request latency (streams: until the stream ends) by route and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers: [this.registry],
  });

  constructor(
    executions: ExecutionCounts,
    store: ExecutionStore,
    oauth: OAuthService,
    connections: ConnectionCount,
    database: Database,
    redis: BackingRedis,
    @Inject(DurableRuns) durable: DurableRuns | null,
  ) {
    collectDefaultMetrics({ register: this.registry, prefix: 'interlude_' });
    dependencyMetrics(this.registry, database, redis, durable);
    new Gauge({
      name: 'interlude_websocket_connections',
      help: 'Open WebSocket connections',
      registers: [this.registry],
      collect() {
        this.set(connections.websockets);
      },
    });
    new Gauge({
      name: 'interlude_oauth_flows',
      help: 'OAuth authorization flows since start-up by outcome (started, completed, failed)',
      labelNames: ['outcome'] as const,
      registers: [this.registry],
      collect() {
        for (const [outcome, count] of Object.entries(oauth.counts)) this.set({ outcome }, count);
      },
    });
    new Gauge({
      name: 'interlude_executions',
      help: 'Executions by state: started and finished (completed, failed, cancelled) since start-up, running now',
      labelNames: ['status'] as const,
      registers: [this.registry],
      collect() {
        this.set({ status: 'started' }, executions.started);
        this.set({ status: 'completed' }, executions.completed);
        this.set({ status: 'failed' }, executions.failed);
        this.set({ status: 'cancelled' }, executions.cancelled);
        this.set({ status: 'running' }, executions.running);
      },
    });
    new Gauge({
      name: 'interlude_waiting_executions',
      help: 'Executions waiting for a person (a prompt or an OAuth authorization); absent while the store does not answer',
      registers: [this.registry],
      async collect() {
        // Read from the store (PostgreSQL with replicas): while it is down or hangs, the scrape goes on
        // without this sample, so that it still says which dependency is down (and in time).
        const count = await withinMs(store.countWaiting(), STORE_READ_MS).catch((err: unknown) => {
          if (err instanceof StoreSilent || isDependencyOutage(err)) return undefined;
          throw err;
        });
        if (count === undefined) this.reset();
        else this.set(count);
      },
    });
  }

  private readonly requestSeries = new Map<
    string,
    { count: { inc(): void }; duration: { observe(value: number): void } }
  >();

  /** Records one request; the labelled series are looked up once per route, method and status. */
  recordRequest(route: string, method: string, status: number, seconds: number): void {
    const key = `${method} ${route} ${status}`;
    let series = this.requestSeries.get(key);
    if (!series) {
      series = {
        count: this.httpRequests.labels({ route, method, status: String(status) }),
        duration: this.httpDuration.labels({ route, method }),
      };
      this.requestSeries.set(key, series);
    }
    series.count.inc();
    series.duration.observe(seconds);
  }

  async render(): Promise<{ contentType: string; body: string }> {
    // prom-client prints an unset event-loop-lag sample as `Nan`, which strict parsers refuse.
    const body = (await this.registry.metrics()).replace(/ Nan$/gm, ' NaN');
    return { contentType: this.registry.contentType, body };
  }
}
