import type { Kysely } from 'kysely';

/** `GET /feedback` without a trace id pages one sender's feedback by id, newest first. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('feedback_user_idx').on('feedback').columns(['user_id', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('feedback_user_idx').execute();
}
