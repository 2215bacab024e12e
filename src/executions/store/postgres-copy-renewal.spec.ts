import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type CompiledQuery } from 'kysely';
import { requires } from '../../../test/utils/requires';
import { ReplicaServices } from '../../../test/utils/replica-services';
import { RedisAudience } from '../../redis/redis-audience';
import { PostgresExecutionStore } from './postgres-execution.store';
import { RecordChanges } from './record-changes';
import { COPY_MS, WRITE_MS } from './record-copies';
import { executedQueries } from '../../../test/utils/executed-queries';

requires('postgres')('Postgres execution store', () => {
  requires('redis')('copies renewed from their rows’ versions (copy-renewal.ts)', () => {
    const services = new ReplicaServices();
    afterAll(() => services.cleanup());

    /** A replica's record changes, once it keeps copies (WRITE_MS after it starts listening). */
    async function opened(): Promise<RecordChanges> {
      const redis = await services.redis(services.newPrefix());
      const changes = await RecordChanges.open(redis, new RedisAudience(redis, 'executions'));
      await sleep(WRITE_MS);
      return changes;
    }

    /** Counts the queries that read a record's text (a renewal reads only ids and versions). */
    const recordReads =
      (count: { reads: number }) =>
      ({ query }: CompiledQuery) => {
        if (query.kind === 'SelectQueryNode' && JSON.stringify(query).includes('"name":"record"'))
          count.reads++;
      };

    it(`a record polled all along is read once, its copy renewed from its row's version past ${COPY_MS} ms; any write of the row, announced or not, is seen within ${COPY_MS} ms`, async () => {
      const { db } = await services.database();
      const count = { reads: 0 };
      const store = new PostgresExecutionStore(executedQueries(db, recordReads(count)), await opened());
      const now = Date.now();
      const id = `renewed-${now}`;
      const waiting = { id, traceId: 't', ownerId: null, workflow: 'w', interactive: true, interactions: {} };
      await store.create({ ...waiting, status: 'interaction_required', createdAt: now, updatedAt: now });
      const pollFor = async (ms: number) => {
        const statuses = new Set<string | undefined>();
        for (const until = performance.now() + ms; performance.now() < until; await sleep(100)) {
          statuses.add((await store.peek(id))?.status);
        }
        return [...statuses];
      };
      expect(await pollFor(COPY_MS * 1.5)).toEqual(['interaction_required']);
      expect(count.reads).toBe(1);

      // Written behind the replicas' backs (a write whose announcement Redis did not take), with the
      // very same text: its row's version is new, so the copy goes and the next poll reads the record.
      await sql`update execution_record set record = record where id = ${id}`.execute(db);
      await pollFor(COPY_MS);
      expect(count.reads).toBe(2);
      const ended = JSON.stringify({
        ...waiting,
        status: 'completed',
        createdAt: now,
        updatedAt: Date.now(),
      });
      await sql`update execution_record set record = ${ended}, status = 'completed' where id = ${id}`.execute(
        db,
      );
      const changed = performance.now();
      while ((await store.peek(id))?.status !== 'completed') await sleep(50);
      expect(performance.now() - changed).toBeLessThan(COPY_MS);
      // As the server's shutdown does: the renewal stops.
      await store.onModuleDestroy();
    });
  });
});
