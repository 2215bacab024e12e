import { holdMachineLock } from '../utils/machine-lock';
import { ReplicaProcesses, type Response } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml } from '../utils/test-app';
import { START_MS, WAIT_MS } from '../utils/timing';

/**
 * PostgreSQL and Redis slow under someone else's load (issue 31, point 5): every chunk to and from
 * both is held 100 ms each way by a TCP proxy, so every round trip costs 200 ms more. People keep
 * starting, answering and polling executions on two replicas meanwhile. Throughput falls; nothing
 * fails: no 5xx and no time-out cascading into failed runs, no execution lost or answered twice, and
 * readiness stays 200 (the dependencies are up, only slow: a load balancer must not pull every replica).
 * Needs `npm run build`.
 */
const SCRIPTED = scriptedYaml(
  `- prompt: { input_type: text, text: 'Name for {{input}}?', save_as: name }`,
  'Hello {{name}} ({{input}})',
);
const ONE_WAY_MS = 100;
const SLOW_FOR_MS = 15_000;
/** The same people first without the delay, for the figures the run prints. */
const BASELINE_MS = 5_000;
const PEOPLE = 4;
const asUser = (n: number) => ({ authorization: `Bearer nvapi-slow-${n}` });

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

interface Pause {
  execution_id: string;
  response_url: string;
  status_url: string;
}

requires('postgres')('PostgreSQL and Redis slow (200 ms more per round trip)', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('two replicas on the shared store', () => {
    let pg: TcpProxy;
    let redis: TcpProxy;
    let set: ReplicaProcesses;

    beforeAll(async () => {
      const db = new URL(process.env.DATABASE_URL!);
      const kv = new URL(process.env.REDIS_URL!);
      pg = await TcpProxy.start(db.hostname, Number(db.port || 5432));
      redis = await TcpProxy.start(kv.hostname, Number(kv.port || 6379));
      set = await ReplicaProcesses.start(2, SCRIPTED, {
        dbUrl: (url) => pg.via(url),
        redisUrl: (url) => redis.via(url),
      });
    }, 3 * START_MS);

    afterAll(async () => {
      await set?.close();
      await pg?.close();
      await redis?.close();
    });

    it(
      'every cycle started while slow completes with its own answer, with no 5xx, and readiness stays 200',
      async () => {
        const statuses: { what: string; status: number; body: string }[] = [];
        const note = (what: string, res: Response) => {
          statuses.push({ what, status: res.status, body: res.text.slice(0, 300) });
          return res;
        };
        // A person starts a run on one replica, answers its prompt on the other, and polls until it ends.
        const completed: { person: number; cycle: number; body: unknown }[] = [];
        const person = async (p: number, until: number): Promise<number> => {
          let cycle = 0;
          for (; Date.now() < until; cycle++) {
            const input = `p${p}-c${cycle}`;
            const started = note(
              'start',
              await timed(
                set.request('POST', '/v1/workflow', {
                  body: { input_message: input },
                  headers: asUser(p),
                  to: (p + cycle) % 2,
                }),
              ),
            );
            if (started.status !== 202) return cycle;
            const pause = started.json as unknown as Pause;
            const answered = note(
              'answer',
              await timed(
                set.request('POST', pause.response_url, {
                  body: { response: { type: 'text', text: `name-${input}` } },
                  headers: asUser(p),
                  to: (p + cycle + 1) % 2,
                }),
              ),
            );
            if (answered.status !== 204) return cycle;
            const deadline = Date.now() + WAIT_MS;
            for (;;) {
              const res = note(
                'poll',
                await timed(set.request('GET', pause.status_url, { headers: asUser(p) })),
              );
              if (res.status !== 200) return cycle;
              if (res.json.status === 'completed' || res.json.status === 'failed') {
                completed.push({ person: p, cycle, body: res.json });
                break;
              }
              if (Date.now() > deadline) throw new Error(`${input} still ${res.text}\n${set.output()}`);
              await new Promise((resolve) => setTimeout(resolve, 200));
            }
            expect(completed.at(-1)).toEqual({
              person: p,
              cycle,
              body: {
                execution_id: pause.execution_id,
                status: 'completed',
                result: { value: `Hello name-${input} (${input})` },
              },
            });
          }
          return cycle;
        };
        // Each request's time, per phase: the same people first without the delay, then with it.
        const took: number[] = [];
        const timed = async (request: Promise<Response>) => {
          const t0 = Date.now();
          const res = await request;
          took.push(Date.now() - t0);
          return res;
        };
        const baselineUntil = Date.now() + BASELINE_MS;
        const baseline = await Promise.all([...Array(PEOPLE).keys()].map((p) => person(p, baselineUntil)));
        const fast = { cycles: baseline.reduce((a, b) => a + b, 0), p99: percentile(took, 0.99) };
        took.length = 0;
        completed.length = 0;

        pg.delay(ONE_WAY_MS);
        redis.delay(ONE_WAY_MS);
        const slowUntil = Date.now() + SLOW_FOR_MS;

        // Readiness, probed on both replicas as a load balancer does, while the people below work.
        const probes: number[] = [];
        const probing = (async () => {
          while (Date.now() < slowUntil) {
            for (const to of [0, 1]) probes.push((await set.request('GET', '/health/ready', { to })).status);
            await new Promise((resolve) => setTimeout(resolve, 500));
          }
        })();

        const slowCycles = await Promise.all([...Array(PEOPLE).keys()].map((p) => person(p, slowUntil)));
        await probing;
        const slow = { cycles: slowCycles.reduce((a, b) => a + b, 0), p99: percentile(took, 0.99) };
        const perSecond = (cycles: number, ms: number) => ((cycles * 1000) / ms).toFixed(2);
        process.stdout.write(
          `faults-slow: ${perSecond(fast.cycles, BASELINE_MS)} cycles/s and request p99 ${fast.p99} ms without the delay; ${perSecond(slow.cycles, SLOW_FOR_MS)} cycles/s and p99 ${slow.p99} ms with 200 ms more per round trip\n`,
        );

        expect(statuses.filter((s) => s.status >= 300)).toEqual([]);
        expect(set.exited()).toEqual([]);
        // Every person got at least one run through while it was slow, and readiness never said 503.
        expect(new Set(completed.map((c) => c.person)).size).toBe(PEOPLE);
        expect(probes.length).toBeGreaterThan(0);
        expect(probes.filter((status) => status !== 200)).toEqual([]);
      },
      BASELINE_MS + SLOW_FOR_MS + WAIT_MS + 4 * START_MS,
    );
  });
});
