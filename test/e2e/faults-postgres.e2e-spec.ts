import { holdMachineLock } from '../utils/machine-lock';
import { metricValue } from '../utils/metrics';
import { ReplicaProcesses } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml } from '../utils/test-app';
import { START_MS } from '../utils/timing';

/**
 * PostgreSQL, the system of record of several replicas, goes away and comes back (issue 31): a TCP
 * proxy between the replicas and the machine's PostgreSQL cuts every connection and refuses new ones,
 * as a restart or fail-over does. Needs `npm run build`.
 */
const SCRIPTED = scriptedYaml(
  `- prompt: { input_type: text, text: 'Name for {{input}}?', save_as: name }
- sleep: { seconds: 2 }`,
  'Hello {{name}} ({{input}})',
);
const OUTAGE_MS = 30_000;
const asUser = (n: number) => ({ authorization: `Bearer nvapi-faults-${n}` });

interface Pause {
  execution_id: string;
  response_url: string;
  status_url: string;
}

requires('postgres')('PostgreSQL unreachable while executions wait for a person', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('two replicas on the shared store', () => {
    let proxy: TcpProxy;
    let set: ReplicaProcesses;

    beforeAll(async () => {
      const target = new URL(process.env.DATABASE_URL!);
      proxy = await TcpProxy.start(target.hostname, Number(target.port || 5432));
      set = await ReplicaProcesses.start(2, SCRIPTED, {
        // Longer than the outage's detection needs, so a loaded machine's slow renewal does not fence first.
        general: { executions: { lease_seconds: 5 } },
        dbUrl: (url) => proxy.via(url),
      });
    }, 3 * START_MS);

    afterAll(async () => {
      await set?.close();
      await proxy?.close();
    });

    it(
      'no replica exits, readiness and requests say 503 with Retry-After, and every wait is answered once it is back',
      async () => {
        const waiting: Pause[] = [];
        for (let n = 0; n < 4; n++) {
          const res = await set.request('POST', '/v1/workflow', {
            body: { input_message: `job-${n}` },
            headers: asUser(n),
            to: n % 2,
          });
          // Anything else names what came back and what the replicas said.
          const seen = res.status === 202 ? {} : { body: res.text, output: set.output() };
          expect({ n, status: res.status, ...seen }).toEqual({ n, status: 202 });
          waiting.push(res.json as unknown as Pause);
        }

        // One more, answered just before the outage: it ends during it (after its 2 s sleep).
        const started = await set.request('POST', '/v1/workflow', {
          body: { input_message: 'job-4' },
          headers: asUser(4),
          to: 0,
        });
        expect(started.status).toBe(202);
        const endsDuring = started.json as unknown as Pause;
        const answered = await set.request('POST', endsDuring.response_url, {
          body: { response: { type: 'text', text: 'own-4' } },
          headers: asUser(4),
          to: 1,
        });
        expect(answered.status).toBe(204);

        proxy.refuse();
        proxy.cut();
        const outageStarted = Date.now();

        // Readiness tells the load balancer within a few seconds, on both replicas.
        for (const to of [0, 1]) {
          const ready = await set.until('/health/ready', to, (r) => r.status === 503);
          expect(ready.status).toBe(503);
        }
        // A request that needs the database: 503 with Retry-After, never a 500 or a hang.
        const poll = await set.request('GET', waiting[0].status_url, { headers: asUser(0), to: 1 });
        expect({ status: poll.status, retryAfter: poll.headers.get('retry-after') }).toEqual({
          status: 503,
          retryAfter: expect.stringMatching(/^\d+$/),
        });
        const answer = await set.request('POST', waiting[1].response_url, {
          body: { response: { type: 'text', text: 'during' } },
          headers: asUser(1),
          to: 0,
        });
        expect(answer.status).toBe(503);
        // What an operator sees: /metrics still answers and says PostgreSQL is down, and each replica
        // said so in one line.
        for (const to of [0, 1]) {
          expect(await metricValue(set.url(to), 'interlude_dependency_up', { dependency: 'postgres' })).toBe(
            0,
          );
          expect(await metricValue(set.url(to), 'interlude_dependency_up', { dependency: 'redis' })).toBe(1);
        }
        expect(set.output().match(/connection lost \(/g)?.length).toBe(2);

        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))),
        );
        proxy.heal();
        const healed = Date.now();

        for (const to of [0, 1])
          await set.until('/health/ready', to, (r) => r.status === 200, { within: START_MS });
        process.stdout.write(
          `faults-postgres: PostgreSQL back after ${OUTAGE_MS} ms away, every replica ready ${Date.now() - healed} ms later\n`,
        );
        expect(set.exited()).toEqual([]);
        for (const to of [0, 1]) {
          const postgres = { dependency: 'postgres' };
          expect(await metricValue(set.url(to), 'interlude_dependency_up', postgres)).toBe(1);
          expect(await metricValue(set.url(to), 'interlude_dependency_reconnects', postgres)).toBe(1);
        }

        // The run that ended during the outage: its end was written once PostgreSQL was back.
        const ended = await set.until(
          endsDuring.status_url,
          1,
          (r) => r.status === 200 && r.json.status !== 'running',
          { headers: asUser(4) },
        );
        expect(ended.json).toEqual({
          execution_id: endsDuring.execution_id,
          status: 'completed',
          result: { value: 'Hello own-4 (job-4)' },
        });

        // Every wait survived the outage, and is answered once.
        for (const [n, pause] of waiting.entries()) {
          const res = await set.request('POST', pause.response_url, {
            body: { response: { type: 'text', text: `own-${n}` } },
            headers: asUser(n),
            to: (n + 1) % 2,
          });
          expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
        }
        for (const [n, pause] of waiting.entries()) {
          const done = await set.until(
            pause.status_url,
            n % 2,
            (r) => r.status === 200 && (r.json.status === 'completed' || r.json.status === 'failed'),
            { headers: asUser(n) },
          );
          expect({ n, body: done.json }).toEqual({
            n,
            body: {
              execution_id: pause.execution_id,
              status: 'completed',
              result: { value: `Hello own-${n} (job-${n})` },
            },
          });
        }
      },
      OUTAGE_MS + 6 * START_MS,
    );
  });
});
