import { sql } from 'kysely';
import { requires } from '../../../test/utils/requires';
import { ReplicaServices } from '../../../test/utils/replica-services';
import type { Database } from '../../db/database';
import { executionStoreContract } from './execution-store.contract';
import { PostgresExecutionStore } from './postgres-execution.store';
import { journalContract } from '../durability/journal.contract';
import { PostgresJournal } from '../durability/postgres-journal';
import { PostgresExecutionClaims } from '../durability/postgres-execution-claims';
import type { RunSpec } from '../model/run-spec';

requires('postgres')('Postgres execution store', () => {
  const services = new ReplicaServices();
  let database: Promise<Database> | undefined;
  const shared = () => (database ??= services.database());
  afterAll(() => services.cleanup());

  executionStoreContract(
    'postgres',
    async () => {
      const { db } = await shared();
      await sql`delete from execution_record`.execute(db);
      return new PostgresExecutionStore(db);
    },
    // Another process: a pool of its own over the same schema.
    async () => new PostgresExecutionStore((await services.database()).db),
  );

  journalContract(
    'postgres',
    async () => new PostgresJournal((await shared()).db),
    async () => new PostgresJournal((await services.database()).db),
  );

  describe('claims of durable executions', () => {
    const spec = { workflow: 'scripted', input: { input_message: 'x' } } as RunSpec;
    async function durable(ids: string[], replica: string) {
      const { db } = await shared();
      await sql`delete from execution_record`.execute(db);
      const store = new PostgresExecutionStore(db);
      for (const id of ids) {
        const now = Date.now();
        const record = { id, traceId: 't', ownerId: null, workflow: 'scripted', status: 'running' as const };
        await store.create(
          { ...record, interactive: true, createdAt: now, updatedAt: now, interactions: {} },
          {
            replica,
            spec,
          },
        );
      }
      return store;
    }

    it("of replicas claiming a dead one's executions at once, each execution goes to exactly one", async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `d-${i}`);
      await durable(ids, 'dead');
      const claimers = [await shared(), await services.database(), await services.database()].map(
        (d) => new PostgresExecutionClaims(d.db),
      );
      expect(await claimers[0].owners()).toEqual(['dead']);
      const claimed = await Promise.all(claimers.map((c, i) => c.claim(`r${i}`, ['dead'], 100)));
      const all = claimed.flat();
      expect(all.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(all[0].spec).toEqual(spec);
      expect(await claimers[0].claim('late', ['dead'], 100)).toEqual([]);
      for (const [i, runs] of claimed.entries()) {
        for (const run of runs) expect(await claimers[0].owns(`r${i}`, run.id)).toBe(true);
      }
    });

    it('released executions are claimable by anyone; finished ones and live owners are left alone', async () => {
      const store = await durable(['a', 'b', 'c'], 'live');
      const claims = new PostgresExecutionClaims((await shared()).db);
      await store.apply('c', { kind: 'completed', result: 1, expiresAt: Date.now() + 1000 });
      expect(await claims.claim('me', ['dead'], 10)).toEqual([]);
      await claims.release('live', ['a']);
      expect((await claims.owners()).sort()).toEqual(['live', null].sort());
      expect((await claims.claim('me', [null], 10)).map((r) => r.id)).toEqual(['a']);
      await claims.release('live');
      expect((await claims.claim('me', [null], 10)).map((r) => r.id)).toEqual(['b']);
    });
  });
});
