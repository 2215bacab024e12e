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

  constructor(private readonly database: Database) {}

  async record(traceId: string, ownerId: string | null): Promise<void> {
    if (ownerId === null) return;
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
    const row = await this.database.db
      .selectFrom('trace_owner')
      .select('owner_id')
      .where('observability_trace_id', '=', traceId)
      .executeTakeFirst();
    return row?.owner_id;
  }
}
