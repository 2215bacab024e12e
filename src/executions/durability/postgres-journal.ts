import { sql, type Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { Fenced, Journal, type JournalEntry } from './journal';
import { fromJson } from '../../db/json-columns';
import { journalRow } from '../store/journal-row';

/** The journal in PostgreSQL beside the execution records; one row per point. */
export class PostgresJournal extends Journal {
  constructor(private readonly db: Kysely<Tables>) {
    super();
  }

  async append(executionId: string, entry: JournalEntry, epoch?: number): Promise<unknown> {
    const row = journalRow(executionId, entry);
    const insert = this.db.insertInto('execution_journal');
    const guarded =
      epoch === undefined
        ? insert.values(row)
        : insert.columns(['execution_id', 'point', 'kind', 'value', 'created_at']).expression((eb) =>
            eb
              .selectFrom('execution_record')
              .select([
                // Typed: a parameter in a select list would be text.
                sql<string>`${executionId}::text`.as('execution_id'),
                sql<string>`${row.point}::text`.as('point'),
                sql<string>`${row.kind}::text`.as('kind'),
                sql<string>`${row.value}::json`.as('value'),
                sql<number>`${row.created_at}::bigint`.as('created_at'),
              ])
              .where('id', '=', executionId)
              .where('epoch', '=', epoch),
          );
    const inserted = await guarded
      .onConflict((c) => c.columns(['execution_id', 'point']).doNothing())
      .returning('point')
      .executeTakeFirst();
    if (inserted) return entry.value;
    if (epoch !== undefined && !(await this.holds(executionId, epoch))) throw new Fenced(executionId);
    const held = await this.db
      .selectFrom('execution_journal')
      .select('value')
      .where('execution_id', '=', executionId)
      .where('point', '=', entry.point)
      .executeTakeFirstOrThrow();
    return fromJson<{ v: unknown }>(held.value).v;
  }

  private async holds(executionId: string, epoch: number): Promise<boolean> {
    const row = await this.db
      .selectFrom('execution_record')
      .select('epoch')
      .where('id', '=', executionId)
      .executeTakeFirst();
    return row !== undefined && Number(row.epoch) === epoch;
  }

  async read(executionId: string): Promise<JournalEntry[]> {
    const rows = await this.db
      .selectFrom('execution_journal')
      .select(['point', 'kind', 'value'])
      .where('execution_id', '=', executionId)
      .orderBy('n')
      .execute();
    return rows.map((r) => {
      const { v, seq } = fromJson<{ v: unknown; seq?: number }>(r.value);
      return seq === undefined
        ? { point: r.point, kind: r.kind, value: v }
        : { point: r.point, kind: r.kind, value: v, seq };
    });
  }

  async delete(executionId: string): Promise<void> {
    await this.db.deleteFrom('execution_journal').where('execution_id', '=', executionId).execute();
  }
}
