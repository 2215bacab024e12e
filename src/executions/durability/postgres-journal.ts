import type { Kysely } from 'kysely';
import type { Tables } from '../../db/tables';
import { Journal, type JournalEntry } from './journal';
import { fromJson, toJson } from '../../db/json-columns';

/** The journal in PostgreSQL beside the execution records; one row per point. */
export class PostgresJournal extends Journal {
  constructor(private readonly db: Kysely<Tables>) {
    super();
  }

  async append(executionId: string, entry: JournalEntry): Promise<unknown> {
    const inserted = await this.db
      .insertInto('execution_journal')
      .values({
        execution_id: executionId,
        point: entry.point,
        kind: entry.kind,
        // The seq beside the value: no column of its own (entries journaled before have none).
        value: toJson({ v: entry.value, seq: entry.seq }),
        created_at: Date.now(),
      })
      .onConflict((c) => c.columns(['execution_id', 'point']).doNothing())
      .returning('point')
      .executeTakeFirst();
    if (inserted) return entry.value;
    const held = await this.db
      .selectFrom('execution_journal')
      .select('value')
      .where('execution_id', '=', executionId)
      .where('point', '=', entry.point)
      .executeTakeFirstOrThrow();
    return fromJson<{ v: unknown }>(held.value).v;
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
