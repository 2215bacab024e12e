import type { Provider } from '@nestjs/common';
import { EventEmitterReadinessWatcher } from '@nestjs/event-emitter';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from '../redis/backing-redis';
import { RedisAudience } from '../redis/redis-audience';
import { Database } from '../db/database';
import { EventLogBudget } from './event-log/event-log-budget';
import { EventLogs } from './event-log/event-log';
import { ExecutionCancels, LocalExecutionCancels, RedisExecutionCancels } from './engine/execution-cancels';
import { MemoryEventLogs } from './event-log/execution-event-log';
import { ExecutionStore } from './store/execution.store';
import { MemoryExecutionStore } from './store/memory-execution.store';
import { PostgresExecutionStore } from './store/postgres-execution.store';
import { RecordChanges } from './store/record-changes';
import { RedisEventLogs } from './event-log/redis-event-logs';
import { DurableRuns } from './durability/durable-runs';
import { PostgresJournal } from './durability/postgres-journal';
import { PostgresExecutionClaims } from './durability/postgres-execution-claims';
import { ReleasedExecutions } from './durability/released-executions';
import { PostgresReplicaLeases } from './durability/postgres-replica-leases';

const STORE = 'general.executions.store';

/** The database `store: postgres` keeps its records in; refuses SQLite, which one process owns. */
export function postgresOf(database: Database): Database {
  if (database.dialect !== 'postgres') {
    throw new Error(
      `${STORE}: postgres keeps execution records in general.db_url, which must be postgres://…`,
    );
  }
  return database;
}

/** The execution store and the event logs, by `general.executions.store`. */
export const executionAdapters: Provider[] = [
  {
    provide: ExecutionStore,
    inject: [ServerConfig, Database, BackingRedis, RedisAudience],
    useFactory: (config: ServerConfig, database: Database, redis: BackingRedis, audience: RedisAudience) =>
      pickAdapter<ExecutionStore | Promise<ExecutionStore>>(STORE, config.general.executions.store, {
        memory: () => new MemoryExecutionStore(),
        // Status polls are served copies that every replica's writes invalidate (record-changes.ts).
        postgres: async () =>
          new PostgresExecutionStore(
            postgresOf(database).db,
            redis.configured ? await RecordChanges.open(redis, audience) : undefined,
          ),
      }),
  },
  {
    provide: EventLogs,
    inject: [ServerConfig, BackingRedis, ExecutionStore],
    useFactory: (config: ServerConfig, redis: BackingRedis, store: ExecutionStore) => {
      const { max_event_log_bytes_per_execution: maxBytes, max_event_log_bytes: total } = config.general;
      const local = { maxBytes, budget: new EventLogBudget(total) };
      const { event_log_max_events, event_log_retention_seconds } = config.general.executions;
      return pickAdapter<EventLogs>(STORE, config.general.executions.store, {
        memory: () => new MemoryEventLogs(local),
        postgres: () =>
          new RedisEventLogs(redis, {
            maxEvents: event_log_max_events,
            retentionSeconds: event_log_retention_seconds,
            local,
            // What this replica writes to Redis has the same bounds, counted apart from its memory.
            shared: { maxBytes, budget: new EventLogBudget(total) },
            records: (id) => store.peek(id),
          }),
      });
    },
  },
  {
    provide: ExecutionCancels,
    inject: [ServerConfig, BackingRedis],
    useFactory: (config: ServerConfig, redis: BackingRedis) =>
      pickAdapter<ExecutionCancels>(STORE, config.general.executions.store, {
        memory: () => new LocalExecutionCancels(),
        postgres: () => new RedisExecutionCancels(redis),
      }),
  },
  {
    // Durable waits: only with the shared store (one process has no replica to hand a run to).
    provide: DurableRuns,
    inject: [ServerConfig, Database, BackingRedis, EventEmitterReadinessWatcher],
    useFactory: (
      config: ServerConfig,
      database: Database,
      redis: BackingRedis,
      events: EventEmitterReadinessWatcher,
    ) =>
      pickAdapter<DurableRuns | null>(STORE, config.general.executions.store, {
        memory: () => null,
        postgres: () => {
          const { db } = postgresOf(database);
          const leaseMs = config.general.executions.lease_seconds * 1000;
          return new DurableRuns(
            new PostgresJournal(db),
            new PostgresExecutionClaims(db),
            new PostgresReplicaLeases(db),
            new ReleasedExecutions(redis),
            leaseMs,
            events.waitUntilReady(),
          );
        },
      }),
  },
];

/** The durable runs' leases and claims (null with the memory store), for what monitors them. */
export { DurableRuns };
