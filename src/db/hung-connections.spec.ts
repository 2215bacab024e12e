import { Kysely, PostgresDialect, sql } from 'kysely';
import { Pool } from 'pg';
import { requires } from '../../test/utils/requires';
import { closingHungConnections } from './hung-connections';

requires('postgres')('PostgreSQL connections as Kysely is given them', () => {
  it('one connection is one Kysely connection for as long as it lives, not a new one per query', async () => {
    const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
    let created = 0;
    const db = new Kysely<unknown>({
      dialect: new PostgresDialect({
        pool: closingHungConnections(pool, () => undefined),
        onCreateConnection: async () => void created++,
      }),
    });
    try {
      const pids = new Set<number>();
      for (let i = 0; i < 5; i++) {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
        pids.add(rows[0].pid);
      }
      expect(pids.size).toBe(1);
      expect(created).toBe(1);
    } finally {
      await db.destroy();
    }
  });
});
