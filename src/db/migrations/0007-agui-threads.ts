import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * The AG-UI threads of `general.executions.store: postgres`, so a thread interrupted on one replica is
 * resumed on any other. The thread itself is one JSON document; the columns beside it are what the
 * claim (a compare-and-set on `busy_until`), the per-user cap and the sweep filter on.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('agui_thread')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('busy_until', 'bigint')
    .addColumn('touched_at', 'bigint', (c) => c.notNull())
    .addColumn('thread', json, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('agui_thread_owner_touched')
    .on('agui_thread')
    .columns(['owner', 'touched_at'])
    .execute();
  await db.schema.createIndex('agui_thread_touched').on('agui_thread').column('touched_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('agui_thread').execute();
}
