import type { Kysely } from 'kysely';

/** TraceOwnerRetention deletes the oldest trace owners: an index keeps that from scanning the table. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('trace_owner_created').on('trace_owner').column('created_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('trace_owner_created').execute();
}
