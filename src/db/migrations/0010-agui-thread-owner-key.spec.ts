import { Kysely, Migrator, sql } from 'kysely';
import { Pool } from 'pg';
import { requires } from '../../../test/utils/requires';
import { InCodeMigrationProvider } from '../migrations';
import { OwnSchemaPostgresDialect } from '../own-schema-introspector';

interface Thread {
  agui_thread: {
    id: string;
    owner: string;
    busy_until: number | null;
    touched_at: number;
    waiting?: boolean;
    thread: string;
  };
}

const row = (owner: string, interrupts: unknown[]) => ({
  id: 't',
  owner,
  busy_until: null,
  touched_at: 1,
  thread: JSON.stringify({ id: 't', owner, interrupts }),
});

requires('postgres')('migration 0010 (AG-UI threads keyed by owner and id)', () => {
  const schema = `mig0010_${process.pid}_${Date.now()}`;
  let db: Kysely<Thread>;
  let migrator: Migrator;
  beforeAll(async () => {
    const pool = new Pool({
      connectionString: process.env.DATABASE_URL,
      options: `-c search_path=${schema}`,
    });
    // As the server does: a migration reads only its own schema, whatever other tests drop meanwhile.
    db = new Kysely<Thread>({ dialect: new OwnSchemaPostgresDialect({ pool }) });
    await sql`create schema ${sql.raw(schema)}`.execute(db);
    const provider = new InCodeMigrationProvider('postgres');
    migrator = new Migrator({ db, provider, migrationTableSchema: schema });
  });
  afterAll(async () => {
    await sql`drop schema ${sql.raw(schema)} cascade`.execute(db);
    await db.destroy();
  });

  it('keeps the threads stored before it, marks the waiting ones, and lets two owners share an id', async () => {
    expect((await migrator.migrateTo('0009-feedback-by-user')).error).toBeUndefined();
    await db
      .insertInto('agui_thread')
      .values(row('alice', [{ interrupt: { id: 'i' } }]))
      .execute();
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await db
      .insertInto('agui_thread')
      .values({ ...row('bob', []), waiting: false })
      .execute();
    const rows = await db
      .selectFrom('agui_thread')
      .select(['owner', 'id', 'waiting'])
      .orderBy('owner')
      .execute();
    expect(rows).toEqual([
      { owner: 'alice', id: 't', waiting: true },
      { owner: 'bob', id: 't', waiting: false },
    ]);
    expect((await migrator.migrateTo('0009-feedback-by-user')).error).toBeUndefined();
    expect(await db.selectFrom('agui_thread').select('owner').execute()).toHaveLength(1);
  });
});
