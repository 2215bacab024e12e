import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Logger } from '@nestjs/common';
import type BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, sql, type Dialect } from 'kysely';
import type { Pool } from 'pg';
import {
  parseDatabaseUrl,
  redactDatabaseUrl,
  SQLITE_MEMORY,
  type DatabaseTarget,
} from '../config/database-url';
import { closingHungConnections } from './hung-connections';
import { InCodeMigrationProvider } from './migrations';
import { OwnSchemaPostgresDialect } from './own-schema-introspector';
import type { Tables } from './tables';

export type DatabaseDialect = DatabaseTarget['dialect'];

/** How long a SQLite writer waits for another connection's lock before failing with SQLITE_BUSY. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;

function sqliteDialect(file: string): Dialect {
  if (file !== SQLITE_MEMORY) mkdirSync(dirname(file), { recursive: true });
  // Loaded by the dialect that uses it: a PostgreSQL server never loads SQLite, nor SQLite `pg`.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const Sqlite = require('better-sqlite3') as typeof BetterSqlite3;
  const db = new Sqlite(file);
  // WAL lets readers run beside the writer; NORMAL sync is durable across process crashes in WAL mode.
  if (file !== SQLITE_MEMORY) db.pragma('journal_mode = WAL');
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return new SqliteDialect({ database: db });
}

/** How long a query waits for a connection before it fails (then 503): a pool never waits for ever. */
const POSTGRES_CONNECT_TIMEOUT_MS = 5000;

/** Whether the database answers, as its connections last told (`/metrics`). */
export interface DependencyHealth {
  up: boolean;
  /** Times it came back after a lost connection. */
  reconnects: number;
}

/** How the server's queries are bounded (PostgreSQL only). */
export interface DatabaseOptions {
  /**
   * A query unanswered this long after it was sent fails ("Query read timeout", a dependency outage:
   * 503): a connection that hangs (a partition) is never reported by the server or by TCP in time.
   */
  queryTimeoutMs?: number;
  /**
   * The hottest queries (prepared-query.ts) run as named prepared statements, parsed and planned once
   * per connection. Off behind a pooler that hands one client's statements to another's session.
   */
  preparedStatements?: boolean;
}

function postgresDialect(
  connectionString: string,
  schema: string | undefined,
  where: string,
  health: DependencyHealth,
  { queryTimeoutMs, preparedStatements = true }: DatabaseOptions,
): Dialect {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as { Pool: typeof Pool };
  const pool = new pg.Pool({
    connectionString,
    // Bounds the wait for a pooled connection and the opening of a new one (its start-up handshake).
    connectionTimeoutMillis: POSTGRES_CONNECT_TIMEOUT_MS,
    // Client side, so it holds when the network hangs (`statement_timeout` is the server's, and a
    // server that never hears the query never applies it). Its connection is closed at once.
    ...(queryTimeoutMs ? { query_timeout: queryTimeoutMs } : {}),
    // Every connection resolves unqualified table names in our schema only.
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const lost = watchOutages(pool, where, health);
  return new OwnSchemaPostgresDialect({ pool: closingHungConnections(pool, lost, preparedStatements) });
}

/**
 * An idle connection the server closes (restart, fail-over, network) is an `error` on the pool, which
 * would end the process if nobody listened. The pool drops that connection and opens new ones on
 * demand: one line says PostgreSQL went away, one that it is back (the next connection that opens).
 * Returned: what says it went away, also called when a query timed out (a connection that hangs).
 */
function watchOutages(pool: Pool, where: string, health: DependencyHealth): (err: Error) => void {
  const lost = (err: Error) => {
    if (!health.up) return;
    health.up = false;
    Database.logger.warn(
      `${where}: connection lost (${err.message}); requests that need it answer 503 until it is back`,
    );
  };
  pool.on('error', lost);
  pool.on('connect', (client) => {
    // The pool hears an idle connection's error; one checked out (between a transaction's queries)
    // emits it on the client itself, where it would end the process unheard. Its query fails anyway.
    client.on('error', lost);
    if (health.up) return;
    health.up = true;
    health.reconnects++;
    Database.logger.log(`${where}: reachable again`);
  });
  return lost;
}

/**
 * The server's one database: SQLite (embedded) or PostgreSQL behind the same Kysely queries.
 * Opened, and migrated to the latest schema, at start-up; closed on shutdown by DatabaseModule.
 */
export class Database {
  static readonly logger = new Logger('Database');

  private constructor(
    readonly db: Kysely<Tables>,
    readonly dialect: DatabaseDialect,
    /** PostgreSQL's state as its connections last told (SQLite is always up). */
    readonly health: DependencyHealth,
  ) {}

  static async open(url: string, options: DatabaseOptions = {}): Promise<Database> {
    const target = parseDatabaseUrl(url);
    let db: Kysely<Tables> | undefined;
    let migrating: Kysely<Tables> | undefined;
    const health: DependencyHealth = { up: true, reconnects: 0 };
    try {
      const where = redactDatabaseUrl(url);
      const dialect = (bounds: DatabaseOptions) =>
        target.dialect === 'sqlite'
          ? sqliteDialect(target.file)
          : postgresDialect(target.connectionString, target.schema, where, health, bounds);
      db = new Kysely<Tables>({ dialect: dialect(options) });
      const database = new Database(db, target.dialect, health);
      const throwaway = target.dialect === 'sqlite' && target.file === SQLITE_MEMORY;
      if (throwaway) {
        Database.logger.warn('db_url is sqlite::memory:: feedback is lost when the server stops');
      }
      // A migration may rightly take longer than any query of a running server (an index on a large
      // table): on PostgreSQL with a query timeout, it runs on a pool of its own without one.
      const unbounded = target.dialect === 'postgres' && options.queryTimeoutMs !== undefined;
      if (unbounded) migrating = new Kysely<Tables>({ dialect: dialect({ preparedStatements: false }) });
      const applied = await database.migrate(
        migrating ?? db,
        target.dialect === 'postgres' ? target.schema : undefined,
      );
      await migrating?.destroy();
      migrating = undefined;
      // A change to a kept schema is worth a line at start-up; an unchanged or throwaway one is not.
      if (applied.length === 0) Database.logger.debug(`${where}: schema up to date`);
      else if (throwaway) Database.logger.debug(`${where}: applied ${applied.join(', ')}`);
      else Database.logger.log(`${where}: applied ${applied.join(', ')}`);
      return database;
    } catch (err) {
      await migrating?.destroy().catch(() => undefined);
      await db?.destroy().catch(() => undefined);
      throw new Error(`Cannot open the database ${redactDatabaseUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
  }

  /** Runs the migrations not yet applied; returns their names. */
  private async migrate(db: Kysely<Tables>, schema: string | undefined): Promise<string[]> {
    // Kysely looks for its migration table in every schema unless told which one: name ours.
    const migrationTableSchema =
      this.dialect === 'postgres'
        ? (schema ?? (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]?.s)
        : undefined;
    const migrator = new Migrator({
      db,
      provider: new InCodeMigrationProvider(this.dialect),
      migrationTableSchema,
    });
    const { error, results = [] } = await migrator.migrateToLatest();
    if (error) throw error;
    return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  }

  close(): Promise<void> {
    return this.db.destroy();
  }
}
