import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * The built-in page's conversations, kept per identity so they follow a person to another browser or
 * device. The turns are one JSON document (the page's own shape); `search_text` is the lower-cased
 * title, questions and answers the page's search looks in; `interaction_ids` the prompts asked in it
 * (space-separated), so the inbox finds the conversation a waiting prompt belongs to; `bytes` its size,
 * for the server-wide bound (the least recently updated, anyone's, go first past it).
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('page_conversation')
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('interaction_ids', 'text', (c) => c.notNull())
    .addColumn('turns', json, (c) => c.notNull())
    .addColumn('bytes', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('page_conversation_pk', ['owner_id', 'id'])
    .execute();
  await db.schema
    .createIndex('page_conversation_owner_updated')
    .on('page_conversation')
    .columns(['owner_id', 'updated_at'])
    .execute();
  await db.schema
    .createIndex('page_conversation_updated')
    .on('page_conversation')
    .column('updated_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('page_conversation').execute();
}
