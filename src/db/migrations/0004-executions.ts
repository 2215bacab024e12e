import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * The shared execution records and pending OAuth flows of `general.executions.store: postgres`. The
 * record itself is one JSON document; the columns beside it are what queries filter on.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  // json, not jsonb: jsonb refuses the \u0000 that model output may hold, and the document is only read whole.
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('execution_record')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_id', 'text')
    .addColumn('client_address', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('waiting', 'boolean', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('record', json, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('execution_record_owner_created')
    .on('execution_record')
    .columns(['owner_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('execution_record_waiting_owner')
    .on('execution_record')
    .columns(['waiting', 'owner_id'])
    .execute();
  await db.schema
    .createIndex('execution_record_waiting_address')
    .on('execution_record')
    .columns(['waiting', 'client_address'])
    .execute();
  await db.schema
    .createIndex('execution_record_expires_at')
    .on('execution_record')
    .column('expires_at')
    .execute();
  await db.schema
    .createTable('pending_oauth_flow')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('flow', json, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pending_oauth_flow_expires_at')
    .on('pending_oauth_flow')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('pending_oauth_flow').execute();
  await db.schema.dropTable('execution_record').execute();
}
