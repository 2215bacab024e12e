import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/** Who produced each observability trace, so feedback on it is theirs (only identified owners are kept). */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  await db.schema
    .createTable('trace_owner')
    .addColumn('observability_trace_id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('created_at', dialect === 'postgres' ? 'timestamptz' : 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('trace_owner').execute();
}
