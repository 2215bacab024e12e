import { Injectable, Logger } from '@nestjs/common';
import { Database } from '../db/database';

/**
 * Who produced each observability trace, kept in the Database because feedback on a trace may come
 * long after its execution record is evicted (a plain `/v1/workflow` run is dropped when it answers).
 * Only identified owners are kept: anonymous traces stay open to anyone, as in NeMo Agent Toolkit, so
 * anonymous traffic adds no rows. The first execution to use a trace id owns it.
 */
@Injectable()
export class TraceOwners {
  private readonly logger = new Logger('TraceOwners');

  /** Inserts still under way: a question about their trace waits for them, not the execution. */
  private readonly pending = new Map<string, Promise<void>>();

  constructor(private readonly database: Database) {}

  /** Starts recording the owner; the execution does not wait for the database round trip. */
  record(traceId: string, ownerId: string | null): void {
    if (ownerId === null) return;
    const insert = this.insert(traceId, ownerId).finally(() => {
      if (this.pending.get(traceId) === insert) this.pending.delete(traceId);
    });
    this.pending.set(traceId, insert);
  }

  private async insert(traceId: string, ownerId: string): Promise<void> {
    try {
      await this.database.db
        .insertInto('trace_owner')
        .values({ observability_trace_id: traceId, owner_id: ownerId, created_at: new Date().toISOString() })
        .onConflict((c) => c.column('observability_trace_id').doNothing())
        .execute();
    } catch (err) {
      // A database outage must not stop workflows; the trace then takes feedback as an anonymous one would.
      this.logger.error(`Could not record the owner of trace ${traceId}: ${(err as Error).message}`);
    }
  }

  /** The identified owner, or undefined for an anonymous or unknown trace. */
  async ownerOf(traceId: string): Promise<string | undefined> {
    await this.pending.get(traceId);
    const row = await this.database.db
      .selectFrom('trace_owner')
      .select('owner_id')
      .where('observability_trace_id', '=', traceId)
      .executeTakeFirst();
    return row?.owner_id;
  }
}
