import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { fromJson } from '../../db/json-columns';
import type { ExecutionRecord } from '../model/execution-record';
import type { OwnerExecutionsQuery } from './execution.store';
import type { VersionedRecord } from './record-copies';
import { PreparedQuery } from '../../db/prepared-query';

/** A record by id: as stored, as its text (what a compare-and-set matches), with its version. */
const RECORD = new PreparedQuery<Tables, 'id', { record: unknown }>((db, param) =>
  db.selectFrom('execution_record').select('record').where('id', '=', param('id')),
);
const TEXT = new PreparedQuery<Tables, 'id', { text: string }>((db, param) =>
  db
    .selectFrom('execution_record')
    .select(sql<string>`record::text`.as('text'))
    .where('id', '=', param('id')),
);
const VERSIONED = new PreparedQuery<Tables, 'id', { record: unknown; version: string }>((db, param) =>
  db
    .selectFrom('execution_record')
    .select(['record', sql<string>`xmin::text`.as('version')])
    .where('id', '=', param('id')),
);

/**
 * The queries of the PostgreSQL store that only read execution records: one by id (its text, its
 * version), the versions of many, the waiting counts and an owner's list. They hold no state; what a
 * read may be served from instead is the store's part (postgres-execution.store.ts).
 */
export class RecordReads {
  constructor(private readonly db: Kysely<Tables>) {}

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const [row] = (await RECORD.run(this.db, { id })).rows;
    return row && fromJson<ExecutionRecord>(row.record);
  }

  /** The record's text as stored (what a compare-and-set of it matches), if it is there. */
  async text(id: string): Promise<string | undefined> {
    const [row] = (await TEXT.run(this.db, { id })).rows;
    return row?.text;
  }

  /**
   * The record with its row's version: `xmin`, the transaction that wrote the row as it is, which
   * every write of the row changes (a copy is renewed while its version stays the same).
   */
  async versioned(id: string): Promise<VersionedRecord | undefined> {
    const [row] = (await VERSIONED.run(this.db, { id })).rows;
    return row && { record: fromJson<ExecutionRecord>(row.record), version: row.version };
  }

  /** The version each of these records has now (`versioned`); a record gone is missing from it. */
  async versions(ids: string[]): Promise<Map<string, string>> {
    const rows = await this.db
      .selectFrom('execution_record')
      .select(['id', sql<string>`xmin::text`.as('version')])
      .where(sql<boolean>`id = any(${ids})`)
      .execute();
    return new Map(rows.map((row) => [row.id, row.version]));
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
}
