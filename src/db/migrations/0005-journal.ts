import { sql, type Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * Durable waits: each execution's journal (the results its workflow depended on, by point), and on its
 * record the replica that runs it (`replica`, null once released) and what re-running it takes (`run_spec`).
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('execution_journal')
    .addColumn('n', dialect === 'postgres' ? 'bigserial' : 'integer', (c) =>
      dialect === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn('execution_id', 'text', (c) => c.notNull())
    .addColumn('point', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('value', json, (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('execution_journal_point', ['execution_id', 'point'])
    .execute();
  await db.schema.alterTable('execution_record').addColumn('replica', 'text').execute();
  await db.schema.alterTable('execution_record').addColumn('run_spec', json).execute();
  // What the claimers scan: durable executions that have not ended, by the replica that runs them.
  await sql`create index execution_record_durable_replica on execution_record (replica)
    where run_spec is not null and status not in ('completed', 'failed')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('execution_record_durable_replica').execute();
  await db.schema.alterTable('execution_record').dropColumn('run_spec').execute();
  await db.schema.alterTable('execution_record').dropColumn('replica').execute();
  await db.schema.dropTable('execution_journal').execute();
}
