import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../database';

/**
 * Async jobs (`/v1/workflow/async`, `/evaluate`): one row per job, kept after it ends (its output is
 * dropped at `expires_at`). The caller's `job_id` is unique per kind and owner, so a duplicate submit,
 * even a concurrent one, finds the row the first one made.
 */
export async function up(db: Kysely<unknown>, dialect: DatabaseDialect): Promise<void> {
  const time = dialect === 'postgres' ? 'timestamptz' : 'text';
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    // The owner's user id, '' for anonymous callers (a unique key cannot rely on NULL).
    .addColumn('owner_key', 'text', (c) => c.notNull())
    .addColumn('identity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('input', 'text')
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('pause', 'text')
    .addColumn('webhook_url', 'text')
    .addColumn('expiry_seconds', 'integer', (c) => c.notNull())
    .addColumn('config_file', 'text')
    .addColumn('output_path', 'text')
    .addColumn('reps', 'integer')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', time, (c) => c.notNull())
    .addColumn('updated_at', time, (c) => c.notNull())
    .addColumn('expires_at', time)
    .execute();
  await db.schema
    .createIndex('jobs_owner_job_id')
    .unique()
    .on('jobs')
    .columns(['kind', 'owner_key', 'job_id'])
    .execute();
  await db.schema
    .createIndex('jobs_owner_created')
    .on('jobs')
    .columns(['kind', 'owner_key', 'created_at'])
    .execute();
  await db.schema.createIndex('jobs_status_expires').on('jobs').columns(['status', 'expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('jobs').execute();
}
