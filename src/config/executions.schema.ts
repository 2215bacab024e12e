import { IsBoolean, IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { IfPresent } from '../core/validation/if-present.decorator';

/** Where the engine keeps what a second process would need to see. */
export const EXECUTION_STORES = ['memory', 'postgres'] as const;
export type ExecutionStoreDriver = (typeof EXECUTION_STORES)[number];

/** `general.executions`: the adapters behind the engine's ports. */
export class ExecutionsConfig {
  /**
   * Execution records, event logs, interaction wake-ups and pending OAuth flows. `memory`: one
   * process. `postgres`: records and OAuth flows in `general.db_url` (a postgres:// URL), event logs
   * and wake-ups in Redis at `redis_url`, so several replicas serve the same executions.
   */
  @IfPresent()
  @IsIn(EXECUTION_STORES, { message: `store must be one of: ${EXECUTION_STORES.join(', ')}` })
  store: ExecutionStoreDriver = 'memory';
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; required with `store: postgres`. */
  @ValidateIf((o: ExecutionsConfig) => o.store === 'postgres' || o.redis_url !== undefined)
  @IsString({ message: 'redis_url is required with store: postgres (e.g. redis_url: ${REDIS_URL})' })
  @Matches(/^rediss?:\/\/\S+$/, { message: 'redis_url must be redis://host:port or rediss://host:port' })
  redis_url?: string;
  /** Every Redis key and channel starts with this, so several deployments can share one Redis. */
  @IfPresent() @IsString() @MaxLength(64) @Matches(/^[A-Za-z0-9:_.-]*$/) redis_key_prefix = 'interlude:';
  /**
   * The environment variable holding the key that seals OAuth tokens at rest (AES-256-GCM) with
   * `store: postgres`: 32 bytes, as 64 hex digits or base64. Required there once an `authentication`
   * provider is configured; start-up fails naming the variable when it is missing.
   */
  @IfPresent()
  @IsString()
  @Matches(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, { message: 'token_key_env must name an environment variable' })
  token_key_env = 'INTERLUDE_TOKEN_KEY';
  /** How long an execution's event log stays in Redis after its last event (seconds). */
  @IfPresent() @IsInt() @Min(60) @Max(30 * 24 * 3600) event_log_retention_seconds = 24 * 3600;
  /** Events kept per execution in Redis; a client resuming before the oldest is told how many it missed. */
  @IfPresent() @IsInt() @Min(100) @Max(10_000_000) event_log_max_events = 100_000;
  /**
   * Durable waits (`store: postgres`): a replica that stops renewing its liveness for this long is
   * presumed dead and its executions are claimed by another one (seconds).
   */
  @IfPresent() @IsInt() @Min(2) @Max(3600) lease_seconds = 10;
  /**
   * Durable runs (`store: postgres`) that nobody can name yet (a plain request answered with its
   * result) are written to PostgreSQL and Redis only once they must be: when they wait for a person
   * or an OAuth consent, when their id is handed out, or once they have run this long (seconds; 0:
   * every durable run is written when it starts). What they did before is written then, at once.
   */
  @IfPresent() @IsInt() @Min(0) @Max(24 * 3600) durable_after_seconds = 5;
  /**
   * How long a PostgreSQL query (`general.db_url`, any store) may wait for its answer before it fails
   * and its request is answered 503 with `Retry-After` (seconds): bounds a connection that hangs (a
   * network partition), which neither the server nor TCP reports. Measured on this side, from when
   * the query is sent; migrations at start-up are not bounded. Far above any query of a working
   * database, however loaded.
   */
  @IfPresent() @IsInt() @Min(1) @Max(3600) postgres_query_timeout_seconds = 10;
  /**
   * The hottest queries of PostgreSQL (`general.db_url`, any store) run as named prepared statements,
   * parsed and planned once per connection. Set false behind a pooler in transaction mode that does
   * not keep them per client (PgBouncer before 1.21, or with `max_prepared_statements = 0`).
   */
  @IfPresent() @IsBoolean() postgres_prepared_statements = true;
  /**
   * How long a Redis command may wait for its answer (also while queued during a reconnect) before it
   * fails and its request is answered 503 with `Retry-After` (seconds). Blocking reads (a stream
   * follower's XREAD) are not bounded by it.
   */
  @IfPresent() @IsInt() @Min(1) @Max(3600) redis_command_timeout_seconds = 5;
}
