import { sql, type Kysely } from 'kysely';
import { requires } from '../../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../../test/utils/replica-services';
import { anExecutionRecord, aPrompt } from '../../../test/utils/builders';
import type { Tables } from '../../db/tables';
import type { ExecutionTransition } from '../model/execution-state';
import { PostgresExecutionStore } from './postgres-execution.store';
import { RecordChanges } from './record-changes';
import { RedisAudience } from '../../redis/redis-audience';
import { WRITE_MS } from './record-copies';
import { executedQueries } from '../../../test/utils/executed-queries';

/** The kinds of statement a store sends (SelectQueryNode, UpdateQueryNode, …), in order. */
function counted(db: Kysely<Tables>): { db: Kysely<Tables>; sent: string[] } {
  const sent: string[] = [];
  return { db: executedQueries(db, ({ query }) => sent.push(query.kind)), sent };
}

const aRecord = (id: string) => anExecutionRecord({ id, ownerId: 'alice' });
const opened: ExecutionTransition = {
  kind: 'interaction_opened',
  interactionId: 'i1',
  interaction: { prompt: aPrompt('text'), status: 'open', deadline: null },
};
const answered: ExecutionTransition = {
  kind: 'interaction_closed',
  interactionId: 'i1',
  status: 'resolved',
  answer: { type: 'text', text: 'Ann' },
};
const completed: ExecutionTransition = {
  kind: 'completed',
  result: 'Hello Ann',
  expiresAt: Date.now() + 60_000,
};

requires('postgres')('Where a replica’s writes of a record start (written-texts.ts)', () => {
  requires('redis')('two replicas, with record change notices', () => {
    const services = new ReplicaServices();
    afterAll(() => services.cleanup());

    async function twoReplicas() {
      const prefix = services.newPrefix();
      const [a, b] = await Promise.all(
        ['A', 'B'].map(async () => {
          const { db } = await services.database();
          const redis = await services.redis(prefix);
          const audience = new RedisAudience(redis, 'executions');
          const changes = await RecordChanges.open(redis, audience);
          return { ...counted(db), changes, audience };
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
      return {
        a: { ...a, store: new PostgresExecutionStore(a.db, a.changes) },
        b: { ...b, store: new PostgresExecutionStore(b.db, b.changes) },
      };
    }

    /** Until `replica` has heard of another's change of `id`. */
    function heard(replica: { changes: RecordChanges }, id: string): Promise<void> {
      return new Promise((resolve) =>
        replica.changes.onChangedElsewhere((changed) => changed === id && resolve()),
      );
    }

    type Replica = Awaited<ReturnType<typeof twoReplicas>>['a'];

    /** B writes `theirs` from what it reads; once A has heard of it, A writes `mine`: what A sent for it. */
    async function afterHearing(
      a: Replica,
      b: Replica,
      id: string,
      theirs: ExecutionTransition,
      mine: ExecutionTransition,
    ) {
      const hearing = heard(a, id);
      expect(await b.store.apply(id, theirs, await b.store.get(id))).toBe('applied');
      await hearing;
      a.sent.length = 0;
      expect(await a.store.apply(id, mine)).toBe('applied');
      return a.sent;
    }

    it('the replica running a run writes its record in one statement, also after another replica answered it', async () => {
      const { a, b } = await twoReplicas();
      await a.store.create(aRecord('w-1'));
      a.sent.length = 0;
      expect(await a.store.apply('w-1', opened)).toBe('applied');
      expect(a.sent).toEqual(['UpdateQueryNode']);

      // B answers from what it read; A hears of it with the text B wrote, and starts from that.
      expect(await afterHearing(a, b, 'w-1', answered, completed)).toEqual(['UpdateQueryNode']);
      expect(await b.store.get('w-1')).toMatchObject({
        status: 'completed',
        result: 'Hello Ann',
        interactions: { i1: { status: 'resolved', answer: { type: 'text', text: 'Ann' } } },
      });
    });

    it('the replica that created a record hears of the first write of it elsewhere, and starts its next write from it', async () => {
      const { a, b } = await twoReplicas();
      await a.store.create(aRecord('w-3'));
      await waitFor('A to join the record’s audience', async () =>
        a.audience.joined('w-3') ? true : undefined,
      );
      expect(await afterHearing(a, b, 'w-3', opened, answered)).toEqual(['UpdateQueryNode']);
    });

    it('a text out of date (a change it did not hear of) costs a read and a second try, never the change', async () => {
      const { a, b } = await twoReplicas();
      await a.store.create(aRecord('w-2'));
      expect(await a.store.apply('w-2', opened)).toBe('applied');
      // Changed behind every replica's back: no notice.
      await sql`update execution_record set record = (record::jsonb || '{"traceId":"t2"}')::json where id = 'w-2'`.execute(
        b.db,
      );
      a.sent.length = 0;
      expect(await a.store.apply('w-2', answered)).toBe('applied');
      expect(a.sent).toEqual(['UpdateQueryNode', 'SelectQueryNode', 'UpdateQueryNode']);
      expect(await b.store.get('w-2')).toMatchObject({
        traceId: 't2',
        status: 'running',
        interactions: { i1: { status: 'resolved' } },
      });
    });
  });
});
