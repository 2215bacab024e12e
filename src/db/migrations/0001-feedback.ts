import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  let table = db.schema.createTable('feedback');
  table =
    dialect === 'postgres'
      ? table.addColumn('id', 'serial', (c) => c.primaryKey())
      : table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement());
  await table
    .addColumn('observability_trace_id', 'text', (c) => c.notNull())
    .addColumn('reaction_type', 'text')
    .addColumn('comment', 'text')
    .addColumn('user_id', 'text')
    .addColumn('created_at', dialect === 'postgres' ? 'timestamptz' : 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('feedback_trace_idx')
    .on('feedback')
    .columns(['observability_trace_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('feedback').execute();
}
