import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * What the A2A face keeps beside the executions under `general.executions.store: postgres`, so any
 * replica continues a context or serves and delivers a task's push-notification configs: a context's
 * turns (by owner and context id) and each task's configs (one JSON list per task).
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('a2a_context')
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('touched_at', 'bigint', (c) => c.notNull())
    .addColumn('turns', json, (c) => c.notNull())
    .addPrimaryKeyConstraint('a2a_context_pk', ['owner', 'context_id'])
    .execute();
  await db.schema.createIndex('a2a_context_touched_at').on('a2a_context').column('touched_at').execute();
  await db.schema
    .createTable('a2a_push_config')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('configs', json, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('a2a_push_config').execute();
  await db.schema.dropTable('a2a_context').execute();
}
