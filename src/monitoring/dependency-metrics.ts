import { Gauge, type Registry } from 'prom-client';
import type { Database } from '../db/database';
import type { DurableRuns } from '../executions/execution-adapters';
import type { BackingRedis } from '../redis/backing-redis';

/**
 * What `/metrics` says of the services every replica stands on, and of the durable runs' leases:
 * each dependency up or down and its reconnects, the executions claimed, taken back and fenced.
 */
export function dependencyMetrics(
  registry: Registry,
  database: Database,
  redis: BackingRedis,
  durable: DurableRuns | null,
): void {
  const dependencies = () =>
    [
      ['postgres', database.dialect === 'postgres' ? database.health : undefined],
      ['redis', redis.configured ? redis.health : undefined],
    ] as const;
  new Gauge({
    name: 'interlude_dependency_up',
    help: 'Whether a service this replica depends on (postgres, redis) is reachable: 1 up, 0 down, as its connections last told',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      for (const [dependency, health] of dependencies())
        if (health) this.set({ dependency }, health.up ? 1 : 0);
    },
  });
  new Gauge({
    name: 'interlude_dependency_reconnects',
    help: 'Times a dependency (postgres, redis) came back after its connection was lost, since start-up',
    labelNames: ['dependency'] as const,
    registers: [registry],
    collect() {
      for (const [dependency, health] of dependencies())
        if (health) this.set({ dependency }, health.reconnects);
    },
  });
  if (!durable) return;
  new Gauge({
    name: 'interlude_durable_runs',
    help: 'Durable executions since start-up: claimed from replicas gone or stopped, taken back after a lease held again, fenced (stopped because the lease could not be renewed in time)',
    labelNames: ['event'] as const,
    registers: [registry],
    collect() {
      const { claimed, reclaimed, fenced } = durable.counts;
      this.set({ event: 'claimed' }, claimed);
      this.set({ event: 'reclaimed' }, reclaimed);
      this.set({ event: 'fenced' }, fenced);
    },
  });
}
