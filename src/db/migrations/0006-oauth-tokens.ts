import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * OAuth tokens shared by every replica (`general.executions.store: postgres`), sealed with AES-256-GCM
 * (the key never reaches the database), and the columns a replica needs to find, settle and replay a
 * pending OAuth flow.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const json = dialect === 'postgres' ? 'json' : 'text';
  await db.schema
    .createTable('oauth_token')
    // `user:<id>:<provider>` or, for an anonymous caller, `execution:<id>:<provider>`.
    .addColumn('owner', 'text', (c) => c.primaryKey())
    // Set for an anonymous caller's token, dropped when that execution ends.
    .addColumn('execution_id', 'text')
    // Which key sealed the row (a hash of it, never the key): a row sealed with another key is not tried.
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('iv', 'text', (c) => c.notNull())
    .addColumn('auth_tag', 'text', (c) => c.notNull())
    .addColumn('ciphertext', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_token_execution').on('oauth_token').column('execution_id').execute();

  // One column per statement: SQLite adds one column per ALTER TABLE.
  const flows = () => db.schema.alterTable('pending_oauth_flow');
  await flows()
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .execute();
  await flows().addColumn('outcome', json).execute();
  await flows().addColumn('execution_id', 'text').execute();
  await flows().addColumn('provider', 'text').execute();
  await flows()
    .addColumn('created_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('pending_oauth_flow_execution')
    .on('pending_oauth_flow')
    .columns(['execution_id', 'provider', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('pending_oauth_flow_execution').execute();
  for (const column of ['created_at', 'provider', 'execution_id', 'outcome', 'status']) {
    await db.schema.alterTable('pending_oauth_flow').dropColumn(column).execute();
  }
  await db.schema.dropTable('oauth_token').execute();
}
