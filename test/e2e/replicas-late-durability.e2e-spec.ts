import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { eventually, scriptedYaml } from '../utils/test-app';
import { holdMachineLock } from '../utils/machine-lock';

/**
 * Runs made durable late (`general.executions.durable_after_seconds`) on real `interlude serve`
 * processes: a `/v1/workflow` request that asks nobody is written to PostgreSQL and Redis only once it
 * outlives that time or pauses, with everything it journaled before; a replica killed before that point
 * leaves nothing to take over (its client runs it again), one killed after it is taken over and goes on
 * from its journal. Needs `npm run build`.
 */
const LEASE_SECONDS = 2;
const DURABLE_AFTER_SECONDS = 2;
/** The lease, a scan, the replay and the rest of the sleep, with room for a slow CI. */
const TAKEOVER_MS = 20_000;

const asUser = (who: string) => ({ authorization: `Bearer nvapi-late-${who}` });

interface Row {
  id: string;
  status: string;
  replica: string | null;
  journal: number;
}

requires('postgres')('A run made durable late', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store', () => {
    let api: Server;
    const hits = new Map<string, number>();
    let replicas: ReplicaProcesses;

    /**
     * The execution records of the deployment, each with how many journal entries it has; journal
     * entries left without a record come as rows of their own (status null).
     */
    async function rows(): Promise<Row[]> {
      const client = new Client({ connectionString: process.env.DATABASE_URL });
      await client.connect();
      try {
        const schema = replicas.services.schema;
        const { rows } = await client.query<Row>(
          `select coalesce(r.id, j.execution_id) as id, r.status, r.replica, count(j.execution_id)::int as journal
             from ${schema}.execution_record r
             full join ${schema}.execution_journal j on j.execution_id = r.id
            group by 1, 2, 3`,
        );
        return rows;
      } finally {
        await client.end();
      }
    }

    beforeAll(async () => {
      api = createServer((req, res) => {
        const who = new URL(req.url ?? '/', 'http://x').searchParams.get('who') ?? '';
        hits.set(who, (hits.get(who) ?? 0) + 1);
        res.end('fine');
      });
      await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      // A journaled step (the fetch), then work that outlives durable_after_seconds.
      const workflow = scriptedYaml(
        `- fetch: { url: '${url}/hit?who={{input}}', save_as: got }
- sleep: { seconds: 4 }`,
        'done {{got}} {{input}}',
      );
      replicas = await ReplicaProcesses.start(2, workflow, {
        general: {
          outbound: { allow_hosts: ['127.0.0.1'] },
          executions: { lease_seconds: LEASE_SECONDS, durable_after_seconds: DURABLE_AFTER_SECONDS },
          shutdown_grace_seconds: 10,
        },
      });
    }, 60_000);
    afterEach(async () => {
      for (let i = 0; i < replicas.count; i++) await replicas.restart(i).catch(() => undefined);
    });
    afterAll(async () => {
      await replicas?.close();
      api?.closeAllConnections();
      await new Promise((r) => api?.close(r));
    });

    it('killed before durable_after_seconds: nothing was written, nobody takes it over, and the client runs it again', async () => {
      const request = replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'early' },
        headers: asUser('early'),
        to: 0,
      });
      await eventually(async () => expect(hits.get('early')).toBe(1));
      expect(await rows()).toEqual([]);
      await replicas.kill(0, 'SIGKILL');
      await expect(request).rejects.toThrow();

      // Past the lease and a scan: the survivor found nothing to claim, and ran nothing again.
      await new Promise((r) => setTimeout(r, LEASE_SECONDS * 1000 + 1500));
      expect(await rows()).toEqual([]);
      expect(hits.get('early')).toBe(1);

      const again = await replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'early' },
        headers: asUser('early'),
        to: 1,
      });
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ value: 'done fine early' });
      expect(hits.get('early')).toBe(2);
      // Answered with its result and never named: what it wrote late is gone with it.
      await eventually(async () => expect(await rows()).toEqual([]));
    }, 60_000);

    it('killed after durable_after_seconds: it was written with its journal, and another replica finishes it without fetching again', async () => {
      const request = replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'late' },
        headers: asUser('late'),
        to: 0,
      });
      request.catch(() => undefined);
      // Written once it outlived durable_after_seconds, with the fetch it journaled before.
      const written = await eventually(async () => {
        const found = await rows();
        expect(found).toEqual([expect.objectContaining({ status: 'running', journal: 1 })]);
        expect(found[0].replica).not.toBeNull();
        return found[0];
      }, 10_000);
      await replicas.kill(0, 'SIGKILL');
      await expect(request).rejects.toThrow();

      const deadline = Date.now() + TAKEOVER_MS;
      for (;;) {
        const status = await replicas.request('GET', `/executions/${written.id}`, {
          headers: asUser('late'),
          to: 1,
        });
        if (status.json.status === 'completed') {
          expect(status.json).toMatchObject({ result: { value: 'done fine late' } });
          break;
        }
        if (Date.now() > deadline) throw new Error(`not completed: ${status.text}\n${replicas.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(hits.get('late')).toBe(1);
      // The journal the survivor replayed goes once the end is recorded.
      await eventually(async () =>
        expect((await rows()).find((r) => r.id === written.id)).toMatchObject({ journal: 0 }),
      );
    }, 60_000);

    it('runs to its end past durable_after_seconds: what it wrote late, journal included, is gone with it', async () => {
      const before = new Set((await rows()).map((r) => r.id));
      const fresh = async () => (await rows()).filter((r) => !before.has(r.id));
      const request = replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'whole' },
        headers: asUser('whole'),
        to: 0,
      });
      await eventually(
        async () =>
          expect(await fresh()).toEqual([expect.objectContaining({ status: 'running', journal: 1 })]),
        10_000,
      );
      const res = await request;
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'done fine whole' });
      await eventually(async () => expect(await fresh()).toEqual([]));
    }, 60_000);

    it('stopped with SIGTERM before durable_after_seconds: the run is handed over and the waiting request gets its result', async () => {
      const request = replicas.request('POST', '/v1/workflow', {
        body: { input_message: 'handed' },
        headers: asUser('handed'),
        to: 0,
      });
      await eventually(async () => expect(hits.get('handed')).toBe(1));
      const unended = async () => (await rows()).filter((r) => r.status !== 'completed');
      expect(await unended()).toEqual([]);
      const stopped = replicas.kill(0, 'SIGTERM');
      const res = await request;
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'done fine handed' });
      expect(hits.get('handed')).toBe(1);
      await stopped;
    }, 60_000);
  });
});
