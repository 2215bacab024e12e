import { sql } from 'kysely';
import { requires } from '../../../test/utils/requires';
import { ReplicaServices } from '../../../test/utils/replica-services';
import type { Database } from '../../db/database';
import { executionStoreContract } from './execution-store.contract';
import { PostgresExecutionStore } from './postgres-execution.store';
import { RecordChanges } from './record-changes';
import { RedisAudience } from '../../redis/redis-audience';
import { WRITE_MS } from './record-copies';
import { journalContract } from '../durability/journal.contract';
import { PostgresJournal } from '../durability/postgres-journal';
import { PostgresExecutionClaims } from '../durability/postgres-execution-claims';
import { PostgresReplicaLeases } from '../durability/postgres-replica-leases';
import { Fenced } from '../durability/journal';
import type { RunSpec } from '../model/run-spec';
import type { ExecutionTransition } from '../model/execution-state';

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

  requires('redis')('with record change notices over Redis (polls served copies)', () => {
    // One RecordChanges per process, opened once: each keeps nothing for WRITE_MS after it starts listening.
    const processes = new Map<string, Promise<RecordChanges>>();
    const prefix = services.newPrefix();
    const changesOf = (name: string) => {
      let changes = processes.get(name);
      if (!changes) {
        changes = services
          .redis(prefix)
          .then((redis) => RecordChanges.open(redis, new RedisAudience(redis, 'executions')))
          .then(async (opened) => {
            await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
            return opened;
          });
        processes.set(name, changes);
      }
      return changes;
    };
    executionStoreContract(
      'postgres, with record change notices',
      async () => {
        const { db } = await shared();
        await sql`delete from execution_record`.execute(db);
        return new PostgresExecutionStore(db, await changesOf('A'));
      },
      async () => new PostgresExecutionStore((await services.database()).db, await changesOf('B')),
    );
  });

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

    it("of replicas claiming a dead one's executions at once, each execution goes to exactly one, under a new epoch", async () => {
      const ids = Array.from({ length: 20 }, (_, i) => `d-${i}`);
      await durable(ids, 'dead');
      const claimers = [await shared(), await services.database(), await services.database()].map(
        (d) => new PostgresExecutionClaims(d.db),
      );
      // Each claimer holds a lease, as a running replica does: what one takes is not an orphan to the others.
      const leases = new PostgresReplicaLeases((await shared()).db);
      for (const r of ['r0', 'r1', 'r2']) await leases.renew(r, 60_000);
      const claimed = await Promise.all(claimers.map((c, i) => c.claim(`r${i}`, 100)));
      const all = claimed.flat();
      expect(all.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(all[0].spec).toEqual(spec);
      expect(new Set(all.map((r) => r.epoch))).toEqual(new Set([1]));
      // Nothing of theirs is an orphan to a later claimer either.
      await leases.renew('late', 60_000);
      expect(await claimers[0].claim('late', 100)).toEqual([]);
      for (const [i, runs] of claimed.entries()) {
        for (const run of runs) expect(await claimers[0].owns(`r${i}`, run.id)).toBe(true);
      }
    });

    it('executions of a replica whose lease holds, finished ones and its own are left alone; released ones go to anyone', async () => {
      const { db } = await shared();
      const leases = new PostgresReplicaLeases(db);
      await leases.renew('live', 60_000);
      const store = await durable(['a', 'b', 'c'], 'live');
      const claims = new PostgresExecutionClaims(db);
      await claims.release('live', ['a']);
      // A claimer whose own lease is not held (it is presumed dead itself) takes nothing, not even a released run.
      expect(await claims.claim('me', 10)).toEqual([]);
      await leases.renew('me', 60_000);
      await store.apply('c', { kind: 'completed', result: 1, expiresAt: Date.now() + 1000 });
      expect((await claims.claim('me', 10)).map((r) => [r.id, r.epoch])).toEqual([['a', 1]]);
      expect(await claims.claim('live', 10)).toEqual([]);
      await claims.release('live');
      expect((await claims.claim('me', 10)).map((r) => r.id)).toEqual(['b']);
      await leases.leave('live');
      await leases.leave('me');
    });

    it('a lease that runs out lets the others claim; the fenced owner takes back only what nobody claimed', async () => {
      const { db } = await shared();
      const leases = new PostgresReplicaLeases(db);
      await leases.renew('slow', 300);
      await leases.renew('other', 60_000);
      await durable(['x', 'y'], 'slow');
      const claims = new PostgresExecutionClaims(db);
      expect(await claims.claim('other', 1)).toEqual([]);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await claims.claim('other', 1)).map((r) => r.id)).toHaveLength(1);
      const back = await claims.reclaim('slow', ['x', 'y']);
      expect(back).toHaveLength(1);
      expect(back[0].epoch).toBe(1);
      expect(await claims.owns('slow', back[0].id)).toBe(true);
      await leases.leave('slow');
      await leases.leave('other');
    });

    it('a renewal tells when the first other lease that holds runs out', async () => {
      const { db } = await shared();
      await sql`delete from replica_lease`.execute(db);
      const leases = new PostgresReplicaLeases(db);
      expect(await leases.renew('alone', 60_000)).toBeUndefined();
      await leases.renew('soon', 800);
      const ms = await leases.renew('alone', 60_000);
      expect(ms).toBeGreaterThan(400);
      expect(ms).toBeLessThanOrEqual(800);
      expect(await leases.renew('soon', 800)).toBeGreaterThan(55_000);
      await new Promise((resolve) => setTimeout(resolve, 900));
      // One that ran out is for the scans to claim, not to wait for.
      expect(await leases.renew('alone', 60_000)).toBeUndefined();
      await leases.leave('alone');
      await leases.leave('soon');
    });

    it('a journal write under a stale epoch is refused with Fenced; under the current one it is kept', async () => {
      const { db } = await shared();
      await durable(['j'], 'dead');
      const journal = new PostgresJournal(db);
      expect(await journal.append('j', { point: '1', kind: 'llm', value: 'first' }, 0)).toBe('first');
      await new PostgresReplicaLeases(db).renew('new', 60_000);
      const [run] = await new PostgresExecutionClaims(db).claim('new', 1);
      expect(run.epoch).toBe(1);
      await expect(journal.append('j', { point: '2', kind: 'llm', value: 'late' }, 0)).rejects.toBeInstanceOf(
        Fenced,
      );
      expect(await journal.append('j', { point: '2', kind: 'llm', value: 'mine' }, 1)).toBe('mine');
      expect((await journal.read('j')).map((e) => e.value)).toEqual(['first', 'mine']);
      await journal.delete('j');
    });
  });
  describe('own records, served from memory (own-records.ts)', () => {
    const record = (id: string) => {
      const now = Date.now();
      return {
        id,
        traceId: 't',
        ownerId: 'alice',
        workflow: 'scripted',
        status: 'running' as const,
        interactive: true,
        createdAt: now,
        updatedAt: now,
        interactions: {},
      };
    };
    const opened: ExecutionTransition = {
      kind: 'interaction_opened',
      interactionId: 'i1',
      interaction: {
        prompt: { input_type: 'text', text: 'Name?', timeout: null, error: null } as never,
        status: 'open',
        deadline: null,
      },
    };

    it('a running record it wrote is held as committed; one another replica can change is not', async () => {
      const { db } = await shared();
      const store = new PostgresExecutionStore(db);
      await store.create(record('own-1'));
      // From memory: gone from the table, still held.
      await sql`delete from execution_record where id = 'own-1'`.execute(db);
      expect(store.held('own-1')).toMatchObject({ id: 'own-1', status: 'running' });
      store.forget(['own-1']);
      expect(store.held('own-1')).toBeUndefined();

      // Waiting on a person: anyone may answer it, so the store is read.
      await store.create(record('own-2'));
      expect(await store.apply('own-2', opened)).toBe('applied');
      expect(store.held('own-2')).toBeUndefined();
      // Answered by another replica: this one holds nothing of it, the record says running.
      const other = new PostgresExecutionStore((await services.database()).db);
      const closed: ExecutionTransition = {
        kind: 'interaction_closed',
        interactionId: 'i1',
        status: 'resolved',
      };
      expect(await other.apply('own-2', closed)).toBe('applied');
      expect(store.held('own-2')).toBeUndefined();
      expect(await store.get('own-2')).toMatchObject({ status: 'running' });
      // Ended: read from the store, where a delete elsewhere is seen.
      expect(await store.apply('own-2', { kind: 'completed', result: 1, expiresAt: Date.now() + 1000 })).toBe(
        'applied',
      );
      expect(store.held('own-2')).toBeUndefined();
    });

    it('no copy while a write is under way: set only once it is committed', async () => {
      const { db } = await shared();
      const store = new PostgresExecutionStore(db);
      await store.create(record('own-3'));
      expect(store.held('own-3')).toBeDefined();
      // Another session holds the row: the write waits for it, its commit has not happened.
      const blocker = await services.database();
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const locking = blocker.db.transaction().execute(async (trx) => {
        await sql`select 1 from execution_record where id = 'own-3' for update`.execute(trx);
        await held;
      });
      await new Promise((r) => setTimeout(r, 50));
      // A change that leaves it running and asking nobody (a consent settled after it moved on).
      const write = store.apply('own-3', { kind: 'oauth_resolved' });
      await new Promise((r) => setTimeout(r, 50));
      expect(store.held('own-3')).toBeUndefined();
      release();
      await locking;
      expect(await write).toBe('applied');
      const committed = await store.get('own-3');
      expect(store.held('own-3')).toEqual(committed);
      expect(committed!.updatedAt).toBeGreaterThan(0);
    });
  });
});
