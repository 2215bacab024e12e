import { Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { Database } from '../../db/database';

/**
 * How long an owner waits in memory before it is written with the others of its batch. One INSERT per
 * identified execution cost as much CPU as the rest of an echo request (better-sqlite3 runs it on the
 * event loop); one multi-row INSERT every few milliseconds costs next to nothing per row.
 */
const FLUSH_DELAY_MS = 20;
/** Rows in one INSERT: 3 parameters each, well under SQLite's and PostgreSQL's parameter limits. */
const MAX_BATCH = 250;

/** Owners taken from the buffer, and the write that stores them. */
interface Batch {
  readonly owners: ReadonlyMap<string, string>;
  readonly written: Promise<void>;
}

/**
 * Who produced each observability trace, kept in the Database because feedback on a trace may come
 * long after its execution record is evicted (a plain `/v1/workflow` run is dropped when it answers).
 * Only identified owners are kept: anonymous traces stay open to anyone, as in NeMo Agent Toolkit, so
 * anonymous traffic adds no rows. The first execution to use a trace id owns it.
 *
 * Owners are written in batches, one after the other so the first owner still wins across batches;
 * a question about a trace whose owner is not written yet waits for that write. Old rows are pruned
 * by TraceOwnerRetention.
 */
@Injectable()
export class TraceOwners implements BeforeApplicationShutdown {
  private readonly logger = new Logger('TraceOwners');

  /** Owners not yet handed to a write, by trace id (the first recorded kept). */
  private buffer = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  /** Batches being written, oldest first. */
  private readonly writing = new Set<Batch>();
  /** The last write; every batch waits for the one before it. */
  private tail: Promise<void> = Promise.resolve();
  /** Set while writes fail, so an outage is logged once rather than once a batch. */
  private failing = false;

  constructor(private readonly database: Database) {}

  /** Queues the owner for the next batch; the execution never waits for the database. */
  record(traceId: string, ownerId: string | null): void {
    if (ownerId === null || this.buffer.has(traceId)) return;
    this.buffer.set(traceId, ownerId);
    if (this.buffer.size >= MAX_BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_DELAY_MS);
      // The shutdown hook writes what is left; a pending batch must not keep a CLI process alive.
      this.timer.unref();
    }
  }

  /** Writes what is buffered; resolves when it, and every batch before it, is written (or failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.size === 0) return this.tail;
    const owners = this.buffer;
    this.buffer = new Map();
    const batch: Batch = { owners, written: this.tail.then(() => this.write(owners)) };
    this.writing.add(batch);
    this.tail = batch.written.then(() => void this.writing.delete(batch));
    return this.tail;
  }

  /** Before DatabaseModule closes the database (an `onApplicationShutdown` hook). */
  beforeApplicationShutdown(): Promise<void> {
    return this.flush();
  }

  /** The identified owner, or undefined for an anonymous or unknown trace. */
  async ownerOf(traceId: string): Promise<string | undefined> {
    // Read from the database even then: an earlier owner (another replica's) wins over a pending one.
    if (this.buffer.has(traceId)) await this.flush();
    else if (this.isBeingWritten(traceId)) await this.tail;
    const row = await this.database.db
      .selectFrom('trace_owner')
      .select('owner_id')
      .where('observability_trace_id', '=', traceId)
      .executeTakeFirst();
    return row?.owner_id;
  }

  private isBeingWritten(traceId: string): boolean {
    for (const batch of this.writing) if (batch.owners.has(traceId)) return true;
    return false;
  }

  private async write(owners: ReadonlyMap<string, string>): Promise<void> {
    const created_at = new Date().toISOString();
    const rows = Array.from(owners, ([observability_trace_id, owner_id]) => ({
      observability_trace_id,
      owner_id,
      created_at,
    }));
    try {
      await this.database.db
        .insertInto('trace_owner')
        .values(rows)
        .onConflict((c) => c.column('observability_trace_id').doNothing())
        .execute();
      if (this.failing) this.logger.log('Trace owners are recorded again');
      this.failing = false;
    } catch (err) {
      // A database outage must not stop workflows; these traces then take feedback as anonymous ones do.
      if (!this.failing) {
        this.logger.error(
          `Could not record the owners of ${rows.length} traces (${(err as Error).message}); ` +
            'further failures are not logged until a write succeeds',
        );
      }
      this.failing = true;
    }
  }
}
