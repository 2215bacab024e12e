import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { ExecutionStore, type DurableRun, type OwnerExecutionsQuery } from './execution.store';
import type { ExecutionRecord } from '../model/execution-record';
import {
  applyTransition,
  WAITING_STATUSES,
  type ExecutionTransition,
  type TransitionOutcome,
} from '../model/execution-state';
import { fromJson, toJson } from '../../db/json-columns';

function columns(record: ExecutionRecord) {
  return {
    owner_id: record.ownerId,
    client_address: record.clientAddress ?? null,
    status: record.status,
    waiting: WAITING_STATUSES.includes(record.status),
    expires_at: record.expiresAt ?? null,
    created_at: record.createdAt,
    record: toJson(record),
  };
}

/**
 * Execution records in PostgreSQL, shared by every replica. A transition reads the row `FOR UPDATE`,
 * runs the state machine and writes it back in one transaction, so two replicas closing the same
 * interaction are serialized and exactly one of them is told `applied`.
 */
export class PostgresExecutionStore extends ExecutionStore {
  constructor(private readonly db: Kysely<Tables>) {
    super();
  }

  async create(record: ExecutionRecord, durable?: DurableRun): Promise<void> {
    const run = durable && { replica: durable.replica, run_spec: toJson(durable.spec) };
    await this.db
      .insertInto('execution_record')
      .values({ id: record.id, ...columns(record), ...run })
      .execute();
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const row = await this.db
      .selectFrom('execution_record')
      .select('record')
      .where('id', '=', id)
      .executeTakeFirst();
    return row && fromJson<ExecutionRecord>(row.record);
  }

  apply(id: string, transition: ExecutionTransition): Promise<TransitionOutcome> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('execution_record')
        .select('record')
        .where('id', '=', id)
        .forUpdate()
        .executeTakeFirst();
      if (!row) return 'not_found';
      const { outcome, record } = applyTransition(fromJson(row.record), transition, Date.now());
      if (outcome !== 'applied') return outcome;
      await trx.updateTable('execution_record').set(columns(record)).where('id', '=', id).execute();
      return outcome;
    });
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('execution_record').where('id', '=', id).execute();
  }

  async countWaiting(ownerId?: string | null): Promise<number> {
    let query = this.db
      .selectFrom('execution_record')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('waiting', '=', true);
    if (ownerId === null) query = query.where('owner_id', 'is', null);
    else if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId);
    const row = await query.executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async countWaitingFrom(clientAddress: string): Promise<number> {
    const row = await this.db
      .selectFrom('execution_record')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('waiting', '=', true)
      .where('client_address', '=', clientAddress)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async listOwned(ownerId: string, query: OwnerExecutionsQuery): Promise<ExecutionRecord[]> {
    if (query.statuses.length === 0) return [];
    let select = this.db
      .selectFrom('execution_record')
      .select('record')
      .where('owner_id', '=', ownerId)
      .where('status', 'in', query.statuses);
    const { after } = query;
    if (after) {
      select = select.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    const rows = await select
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(query.limit)
      .execute();
    return rows.map((r) => fromJson<ExecutionRecord>(r.record));
  }

  async evictExpired(now: number): Promise<string[]> {
    const rows = await this.db
      .deleteFrom('execution_record')
      .where('expires_at', 'is not', null)
      .where('expires_at', '<=', now)
      .returning('id')
      .execute();
    return rows.map((r) => r.id);
  }
}
