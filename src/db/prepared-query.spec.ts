import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import Sqlite from 'better-sqlite3';
import { Pool } from 'pg';
import { requires } from '../../test/utils/requires';
import { closingHungConnections } from './hung-connections';
import { PreparedQuery } from './prepared-query';

interface Notes {
  note: { id: string; body: string; shelf: string };
}

const INSERT = new PreparedQuery<Notes, 'id' | 'body' | 'shelf'>((db, param) =>
  db.insertInto('note').values({ id: param('id'), body: param('body'), shelf: param('shelf') }),
);
const KEPT = new PreparedQuery<Notes, 'id', { body: string }>((db, param) =>
  db.selectFrom('note').select('body').where('id', '=', param('id')).where('shelf', '=', 'kept'),
);
const RENAME = new PreparedQuery<Notes, 'id' | 'from' | 'to'>((db, param) =>
  db
    .updateTable('note')
    .set({ body: param('to') })
    .where('id', '=', param('id'))
    .where('body', '=', param('from')),
);

/** Writes and reads notes through the prepared queries: what each run returns. */
async function notesThrough(db: Kysely<Notes>): Promise<unknown[]> {
  await sql`create table note (id text primary key, body text not null, shelf text not null)`.execute(db);
  await INSERT.run(db, { id: 'a', body: 'first', shelf: 'kept' });
  await INSERT.run(db, { id: 'b', body: 'second', shelf: 'bin' });
  return [
    (await KEPT.run(db, { id: 'a' })).rows,
    (await KEPT.run(db, { id: 'b' })).rows,
    (await RENAME.run(db, { id: 'a', from: 'first', to: 'renamed' })).numAffectedRows,
    (await RENAME.run(db, { id: 'a', from: 'first', to: 'again' })).numAffectedRows,
    (await KEPT.run(db, { id: 'a' })).rows,
  ];
}

const EXPECTED = [[{ body: 'first' }], [], 1n, 0n, [{ body: 'renamed' }]];

describe('A query compiled once and run with new values (prepared-query.ts)', () => {
  it('runs with each run’s values, in SQLite', async () => {
    const db = new Kysely<Notes>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) });
    try {
      expect(await notesThrough(db)).toEqual(EXPECTED);
    } finally {
      await db.destroy();
    }
  });

  it('refuses a query with a value written into its SQL, which would run with the first one', async () => {
    const db = new Kysely<Notes>({ dialect: new SqliteDialect({ database: new Sqlite(':memory:') }) });
    const inlined = new PreparedQuery<Notes, 'id'>((kysely, param) =>
      kysely
        .selectFrom('note')
        .select('body')
        .where(sql.raw(param('id')), '=', 'x'),
    );
    await expect(inlined.run(db, { id: 'a' })).rejects.toThrow('A parameter was inlined into the SQL');
    await db.destroy();
  });

  requires('postgres')('in PostgreSQL', () => {
    /** A pool of one connection (the schema's own), named statements or not; what that session holds. */
    async function onOneConnection(prepared: boolean, use: (db: Kysely<Notes>) => Promise<void>) {
      const schema = `prepared_${prepared}_${process.pid}_${Date.now()}`;
      const admin = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
      await admin.query(`create schema ${schema}`);
      const pool = new Pool({
        connectionString: process.env.DATABASE_URL,
        max: 1,
        options: `-c search_path=${schema}`,
      });
      const db = new Kysely<Notes>({
        dialect: new PostgresDialect({ pool: closingHungConnections(pool, () => undefined, prepared) }),
      });
      try {
        await use(db);
      } finally {
        await db.destroy();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      }
    }

    const statements = async (db: Kysely<Notes>) =>
      (
        await sql<{
          statement: string;
        }>`select statement from pg_prepared_statements order by statement`.execute(db)
      ).rows.map((row) => row.statement.split(' ').slice(0, 3).join(' '));

    it('runs each as a statement its connection parsed once, with each run’s values', async () => {
      await onOneConnection(true, async (db) => {
        expect(await notesThrough(db)).toEqual(EXPECTED);
        expect(await statements(db)).toEqual([
          'insert into "note"',
          'select "body" from',
          'update "note" set',
        ]);
      });
    });

    it('with prepared statements off (a pooler that does not keep them), leaves none in the session', async () => {
      await onOneConnection(false, async (db) => {
        expect(await notesThrough(db)).toEqual(EXPECTED);
        expect(await statements(db)).toEqual([]);
      });
    });
  });
});
