import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * The stored OpenAI responses of `general.executions.store: postgres`, so a response created on one
 * replica is retrieved, continued (`previous_response_id`) or answered on any other. The response is
 * one JSON document; the columns beside it are what the owner check and the sweep filter on.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('response')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('response', json, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('response_expires_at').on('response').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('response').execute();
}
