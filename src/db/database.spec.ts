import { sql } from 'kysely';
import { Client } from 'pg';
import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { TcpProxy } from '../../test/utils/tcp-proxy';
import { isDependencyOutage } from '../core/errors/dependency-outage';
import { Database } from './database';

requires('postgres')('Database on PostgreSQL beside other schemas', () => {
  const services = new ReplicaServices();
  const neighbour = `neighbour_${services.tag}`;
  let admin: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: process.env.DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${neighbour}`);
    await admin.query(`create table ${neighbour}.kysely_migration (name text primary key)`);
    await admin.query(`create table ${neighbour}.feedback (id int)`);
  });

  afterAll(async () => {
    await admin.query(`drop schema if exists ${neighbour} cascade`);
    await admin.end();
    await services.cleanup();
  });

  it('sees only its own schema: another server’s tables are not its tables', async () => {
    const database = await services.database();
    const tables = await database.db.introspection.getTables();
    expect(tables.length).toBeGreaterThan(0);
    expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([services.schema]));
    const schemas = await database.db.introspection.getSchemas();
    expect(schemas.map((s) => s.name)).toEqual([services.schema]);
  });

  it('opens and migrates while other schemas are created and dropped around it', async () => {
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const name = `${neighbour}_${i}`;
        await admin.query(`create schema ${name}; create table ${name}.t (id int)`);
        await admin.query(`drop schema ${name} cascade`);
      }
    })();
    try {
      for (let i = 0; i < 15; i++) {
        const round = new ReplicaServices();
        try {
          const database = await round.database();
          const names = (await database.db.introspection.getTables()).map((t) => t.name);
          expect(names).toContain('feedback');
        } finally {
          await round.cleanup();
        }
      }
    } finally {
      churning = false;
      await churn;
    }
  });

  it('fails a query on a connection that hangs within its timeout, as an outage, and works again once healed', async () => {
    const target = new URL(process.env.DATABASE_URL!);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    await services.database(); // the schema, migrated directly
    const database = await Database.open(proxy.via(services.dbUrl), { queryTimeoutMs: 500 });
    const failureOf = (promise: Promise<unknown>) => {
      const started = Date.now();
      return promise.then(
        () => ({ ms: Date.now() - started, err: undefined }),
        (err: unknown) => ({ ms: Date.now() - started, err }),
      );
    };
    try {
      await sql`select 1`.execute(database.db); // a pooled connection, open before the partition
      proxy.hang();
      // In a transaction on that connection: it fails once (its ROLLBACK does not wait out a second
      // timeout, the hung connection is closed), as an outage.
      const inTransaction = await failureOf(
        database.db.transaction().execute((trx) => sql`select 1`.execute(trx)),
      );
      expect(inTransaction.ms).toBeLessThan(1500);
      expect(isDependencyOutage(inTransaction.err)).toBe(true);
      // The next query needs a new connection, which does not open either: an outage too.
      const next = await failureOf(sql`select 1`.execute(database.db));
      expect(next.ms).toBeLessThan(7000);
      expect(isDependencyOutage(next.err)).toBe(true);
      proxy.heal();
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      proxy.heal();
      await database.close();
      await proxy.close();
    }
  });

  it('outlives a connection cut in the middle of a transaction, and works again once PostgreSQL is back', async () => {
    const target = new URL(process.env.DATABASE_URL!);
    const proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
    await services.database(); // the schema, migrated directly
    const database = await Database.open(proxy.via(services.dbUrl));
    try {
      const outcome = database.db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        // The connection is checked out of the pool now: its loss is the client's own 'error' event.
        proxy.cut();
        await new Promise((resolve) => setTimeout(resolve, 200));
        await sql`select 1`.execute(trx);
      });
      await expect(outcome).rejects.toThrow();
      const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db);
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await database.close();
      await proxy.close();
    }
  });
});
