import { sql, type Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * AG-UI threads are keyed by (owner, id): a client's `threadId` names a thread of its caller only, so
 * one user can neither reach nor squat another's. `waiting` marks a thread with open interrupts, which
 * never makes room for a new one. SQLite never holds threads (its store is `memory`): the table is made
 * again there.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  if (dialect !== 'postgres') {
    await db.schema.dropTable('agui_thread').execute();
    await db.schema
      .createTable('agui_thread')
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('busy_until', 'bigint')
      .addColumn('touched_at', 'bigint', (c) => c.notNull())
      .addColumn('waiting', 'boolean', (c) => c.notNull().defaultTo(false))
      .addColumn('thread', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('agui_thread_pkey', ['owner', 'id'])
      .execute();
    await db.schema
      .createIndex('agui_thread_owner_touched')
      .on('agui_thread')
      .columns(['owner', 'touched_at'])
      .execute();
    await db.schema.createIndex('agui_thread_touched').on('agui_thread').column('touched_at').execute();
    return;
  }
  await sql`alter table agui_thread drop constraint agui_thread_pkey`.execute(db);
  await sql`alter table agui_thread add primary key (owner, id)`.execute(db);
  await db.schema
    .alterTable('agui_thread')
    .addColumn('waiting', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`update agui_thread set waiting = json_array_length(thread -> 'interrupts') > 0`.execute(db);
}

export async function down(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.schema.alterTable('agui_thread').dropColumn('waiting').execute();
  await sql`alter table agui_thread drop constraint agui_thread_pkey`.execute(db);
  // Two owners' threads of one id cannot both stay under the old key: the older goes.
  await sql`delete from agui_thread a using agui_thread b
    where a.id = b.id and (a.touched_at, a.ctid) < (b.touched_at, b.ctid)`.execute(db);
  await sql`alter table agui_thread add primary key (id)`.execute(db);
}
