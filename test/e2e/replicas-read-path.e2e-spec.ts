import { call, Executions, type Pause } from '../utils/hitl';
import { sharedStoreYaml } from '../utils/replica-apps';
import { ReplicaServices } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { TcpProxy } from '../utils/tcp-proxy';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

/** A prompt, then half a second of running, then the end: each status lasts long enough to be polled. */
const YAML = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', save_as: name }
- sleep: { seconds: 0.5 }`,
  'Hello {{name}}',
);

/** The order a run's statuses come in, as polls may show them (the first poll sees the prompt). */
const RANK: Record<string, number> = { interaction_required: 1, running: 2, completed: 3 };

/**
 * Milliseconds each chunk between B and Redis waits, each way: B hears other replicas late. Past the
 * bound B waits to have heard everything sent before a poll (150 ms each way), B reads PostgreSQL for
 * every poll; within it (60 ms), B serves its copies once it has heard what was sent before the poll.
 */
const REDIS_DELAYS_MS = [150, 60];

interface Seen {
  on: 'A' | 'B';
  status: string;
}

/**
 * Status polls across replicas never go back: a client that alternates its polls between two replicas
 * while the run moves on sees its statuses in order, never running after completed nor the prompt again
 * after its answer. B reaches Redis through a slow link, so anything B would learn from a notice sent
 * over Redis (another replica's change) comes late: a poll must not depend on it.
 */
requires('postgres')('Status polls across replicas', () => {
  for (const delayMs of REDIS_DELAYS_MS) {
    requires('redis')(`on the shared store, one replica hearing Redis ${delayMs} ms late`, () => {
      const services = new ReplicaServices();
      let proxy: TcpProxy;
      let a: TestApp;
      let b: TestApp;
      beforeAll(async () => {
        const redis = new URL(services.redisUrl);
        proxy = await TcpProxy.start(redis.hostname, Number(redis.port || 6379));
        const shared = sharedStoreYaml(services, services.newPrefix());
        a = await startApp(`${shared}${YAML}`);
        const viaProxy = JSON.stringify(proxy.via(services.redisUrl));
        b = await startApp(`${shared.replace(JSON.stringify(services.redisUrl), viaProxy)}${YAML}`);
        proxy.delay(delayMs);
      });
      afterAll(async () => {
        proxy?.heal();
        await Promise.all([a?.close(), b?.close()]);
        await proxy?.close();
        await services.cleanup();
      });

      /** Polls `id` on A, then B, then A… until `stop()`; returns what each poll saw, in order. */
      function alternate(id: string): { seen: Seen[]; stop(): Promise<void> } {
        const seen: Seen[] = [];
        let stopped = false;
        const loop = (async () => {
          for (let i = 0; !stopped; i++) {
            const on = i % 2 === 0 ? 'A' : 'B';
            const res = await new Executions((on === 'A' ? a : b).url).status(id);
            expect(res.status).toBe(200);
            seen.push({ on, status: res.json.status as string });
          }
        })();
        return {
          seen,
          stop: async () => {
            stopped = true;
            await loop;
          },
        };
      }

      /** Polls until a poll on either replica shows `status`, then 300 ms more. */
      async function pollPast(seen: Seen[], status: string): Promise<void> {
        const deadline = Date.now() + 20_000;
        while (!seen.some((s) => s.status === status)) {
          if (Date.now() > deadline) throw new Error(`no poll showed ${status}: ${JSON.stringify(seen)}`);
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 300));
      }

      /** The first poll that showed an earlier status than one before it, if any. */
      function firstStepBack(seen: Seen[]): string | undefined {
        let best = 0;
        for (const [i, s] of seen.entries()) {
          const rank = RANK[s.status];
          if (rank === undefined) return `poll ${i} on ${s.on}: unexpected ${s.status}`;
          if (rank < best) {
            const before = seen.slice(Math.max(0, i - 4), i + 1).map((x) => `${x.on}:${x.status}`);
            return `poll ${i} on ${s.on} went back to ${s.status} (${before.join(' → ')})`;
          }
          best = Math.max(best, rank);
        }
        return undefined;
      }

      it.each([
        ['A, the replica running it', 'A'],
        ['B, the replica that hears Redis late', 'B'],
      ])(
        'answered on %s: polls alternating between A and B see the prompt, running, completed, in that order',
        async (_label, answeredOn) => {
          // Several at once, each polled by its own client.
          const runs = await Promise.all(
            [0, 1, 2].map(async () => {
              const started = await call('POST', `${a.url}/v1/workflow`, { input_message: 'x' });
              expect(started.status).toBe(202);
              const pause = started.json as unknown as Pause;
              return { pause, polls: alternate(pause.execution_id) };
            }),
          );
          try {
            await Promise.all(runs.map((r) => pollPast(r.polls.seen, 'interaction_required')));
            const answerer = new Executions((answeredOn === 'A' ? a : b).url);
            for (const { pause, polls } of runs) {
              const answered = await answerer.answer(pause.response_url, { type: 'text', text: 'Ada' });
              expect(answered.status).toBe(204);
              await pollPast(polls.seen, 'running');
            }
            await Promise.all(runs.map((r) => pollPast(r.polls.seen, 'completed')));
          } finally {
            await Promise.all(runs.map((r) => r.polls.stop()));
          }
          for (const { polls } of runs) {
            expect(firstStepBack(polls.seen)).toBeUndefined();
            // Both replicas were asked in every phase (the check above compared them).
            for (const status of ['interaction_required', 'completed']) {
              for (const on of ['A', 'B']) {
                expect(polls.seen.some((s) => s.on === on && s.status === status)).toBe(true);
              }
            }
          }
        },
      );
    });
  }
});
