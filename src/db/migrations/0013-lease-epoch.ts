import type { Kysely } from 'kysely';

/**
 * Leases and fencing for durable executions (`general.executions.store: postgres`). Each replica's
 * lease is a row whose expiry it renews (on PostgreSQL's clock, so replicas' clocks do not matter),
 * and each execution carries an epoch that every claim increments: a replica writes its run's journal
 * only while the epoch it holds is the record's, so a replica presumed dead cannot write over the one
 * that took its run over. In PostgreSQL rather than Redis: a Redis that restarts empty loses no lease.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('execution_record')
    .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('replica_lease')
    .addColumn('replica', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('replica_lease').execute();
  await db.schema.alterTable('execution_record').dropColumn('epoch').execute();
}
