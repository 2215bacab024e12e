import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables';
import { fromJson, toJson } from '../db/json-columns';
import { ResponsesStore, type StoredResponse } from './responses-store';

/** The stored responses in PostgreSQL, beside the execution records they point to, for replicas. */
export class PostgresResponsesStore extends ResponsesStore {
  constructor(
    private readonly db: Kysely<Tables>,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

  async get(id: string): Promise<StoredResponse | undefined> {
    const row = await this.db
      .selectFrom('response')
      .select('response')
      .where('id', '=', id)
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    return row && fromJson<StoredResponse>(row.response);
  }

  async put(response: StoredResponse): Promise<void> {
    const columns = { owner_id: response.owner, expires_at: response.expiresAt, response: toJson(response) };
    await this.db
      .insertInto('response')
      .values({ id: response.id, ...columns })
      .onConflict((c) => c.column('id').doUpdateSet(columns))
      .execute();
  }

  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('response').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async sweep(now = this.now()): Promise<void> {
    await this.db.deleteFrom('response').where('expires_at', '<=', now).execute();
  }
}
