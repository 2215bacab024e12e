import {
  choice,
  confirmingAgentYaml,
  confirmingModel,
  inputOf,
  type Pause,
} from '../utils/confirming-agents';
import { FakeLlm } from '../utils/fake-llm';
import { ReplicaProcesses, type Response } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { scriptedYaml } from '../utils/test-app';
import { WAIT_MS } from '../utils/timing';
import { holdMachineLock } from '../utils/machine-lock';
import { metricValue } from '../utils/metrics';

/**
 * Durable waits across real server processes: a replica dies (SIGKILL) or is stopped (SIGTERM) while
 * executions wait on it, and the others take them over. Needs `npm run build`.
 */
const LEASE_SECONDS = 2;
// A stop that runs out of grace exits 1: two full test runs at once on two cores stretched a clean
// stop past 5 s, so the grace is wide; a stop that hangs still ends by it, and the test then fails.
// A hand-over takes well under a second alone; a full test run at once on two cores stretched it past 20 s.
const DURABLE = { executions: { lease_seconds: LEASE_SECONDS }, shutdown_grace_seconds: 45 };
const SCRIPTED = scriptedYaml(
  `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { ok: true } }
- prompt: { input_type: text, text: 'Name for {{input}}?', save_as: name }`,
  'Hello {{name}} ({{input}})',
);
const EACH = 50;

const asUser = (n: number) => ({ authorization: `Bearer nvapi-failover-${n}` });
const text = (t: string) => ({ response: { type: 'text', text: t } });

async function pollUntil(
  set: ReplicaProcesses,
  id: string,
  headers: Record<string, string>,
  check: (json: Record<string, unknown>) => boolean,
  timeoutMs: number,
  to?: () => number,
): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    const res = await set.request('GET', `/executions/${id}`, { headers, to: to?.() });
    if (res.status >= 500) throw new Error(`${res.status} from replica ${res.replica}: ${res.text}`);
    if (res.status === 200 && check(res.json)) return res.json;
    last = res.json;
    if (Date.now() > deadline)
      throw new Error(`execution ${id} never got there; last ${JSON.stringify(last)}\n${set.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function inPool(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Replica 1 and 2 in turn: the survivors of replica 0. */
function survivors(): () => number {
  let turn = 0;
  return () => 1 + (turn++ % 2);
}

requires('postgres')('A replica killed with SIGKILL while executions wait on it', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store and leases', () => {
    let llm: FakeLlm;
    let scripted: ReplicaProcesses;
    let agents: ReplicaProcesses;

    beforeAll(async () => {
      llm = await FakeLlm.start();
      llm.respondWith(confirmingModel);
      const agentConfig = confirmingAgentYaml(llm);
      [scripted, agents] = await Promise.all([
        ReplicaProcesses.start(3, SCRIPTED, { general: DURABLE }),
        ReplicaProcesses.start(3, agentConfig, { general: DURABLE }),
      ]);
    }, 90_000);
    afterAll(async () => {
      await Promise.all([scripted?.close(), agents?.close()]);
      await llm?.close();
    });

    it(`${2 * EACH} waits on A (scripted prompts and agents in ask_confirmation), A killed: all answered through B and C complete with their own answers, once`, async () => {
      const waiting: { set: ReplicaProcesses; pause: Pause; n: number; kind: 'scripted' | 'agent' }[] = [];
      await inPool(2 * EACH, 20, async (i) => {
        const kind = i % 2 ? 'agent' : 'scripted';
        const set = kind === 'agent' ? agents : scripted;
        const res = await set.request('POST', '/v1/workflow', {
          body: { input_message: `${kind}-${i}` },
          headers: asUser(i),
          to: 0,
        });
        expect({ i, status: res.status, body: res.json }).toMatchObject({ i, status: 202 });
        waiting.push({ set, pause: res.json as unknown as Pause, n: i, kind });
      });
      expect(llm.requests).toHaveLength(EACH);

      await Promise.all([scripted.kill(0, 'SIGKILL'), agents.kill(0, 'SIGKILL')]);

      // Answered at once (before, during or after the take-over): each is taken once.
      const next = survivors();
      await inPool(waiting.length, 20, async (i) => {
        const { set, pause, n, kind } = waiting[i];
        const body =
          kind === 'agent'
            ? { response: { type: 'radio', selected_option: { id: choice(n) } } }
            : text(`own-${n}`);
        const res = await set.request('POST', pause.response_url, { body, headers: asUser(n), to: next() });
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      });

      await inPool(waiting.length, 20, async (i) => {
        const { set, pause, n, kind } = waiting[i];
        const done = await pollUntil(
          set,
          pause.execution_id,
          asUser(n),
          (j) => j.status === 'completed' || j.status === 'failed',
          60_000,
          next,
        );
        const value = kind === 'agent' ? `agent-${n}: ${choice(n)}` : `Hello own-${n} (scripted-${n})`;
        expect({ n, done }).toEqual({
          n,
          done: { execution_id: pause.execution_id, status: 'completed', result: { value } },
        });
        // A second answer, on either survivor, is refused: the first was applied once.
        const again = await set.request('POST', pause.response_url, {
          body: text('twice'),
          headers: asUser(n),
          to: next(),
        });
        expect({ n, status: again.status }).toEqual({ n, status: 400 });
      });

      // The model was asked once before the pause and once after the answer, per agent: the call
      // made on A was replayed from the journal on the survivor, not made again. A survivor that
      // stalled for ¾ of a lease (a loaded machine) stops acting on its runs and takes them back from
      // their journals: a call it made and had not journaled yet is made again (work between two
      // journal points runs at least once, docs/replicas.md), never the one before the pause.
      const fenced = [1, 2].map((i) =>
        metricValue(agents.url(i), 'interlude_durable_runs', { event: 'fenced' }),
      );
      const afterAnswer = (await Promise.all(fenced)).some((n) => n > 0) ? expect.any(Number) : 1;
      const byInput = new Map<string, { first: number; after: number }>();
      for (const request of llm.requests) {
        const counts = byInput.get(inputOf(request)) ?? { first: 0, after: 0 };
        if (request.body.messages.at(-1)!.role === 'user') counts.first++;
        else counts.after++;
        byInput.set(inputOf(request), counts);
      }
      expect(byInput.size).toBe(EACH);
      for (const [input, counts] of byInput) {
        expect({ input, ...counts }).toEqual({ input, first: 1, after: afterAnswer });
        expect(counts.after).toBeGreaterThanOrEqual(1);
      }
    }, 110_000);
  });
});

requires('postgres')('A replica stopped with SIGTERM under load', () => {
  holdMachineLock('postgres-heavy');
  requires('redis')('with the shared store and leases', () => {
    let set: ReplicaProcesses;

    beforeAll(async () => {
      set = await ReplicaProcesses.start(3, SCRIPTED, {
        general: DURABLE,
        env: { LOG_LEVEL: process.env.REPLICA_LOG_LEVEL ?? 'warn' },
      });
    }, 60_000);
    afterAll(async () => {
      await set?.close();
    });

    it('no request gets a 5xx, and every execution waiting on it goes on from a survivor within the lease time', async () => {
      const waiting: Pause[] = [];
      await inPool(30, 10, async (n) => {
        const res = await set.request('POST', '/v1/workflow', { body: { input_message: `t-${n}` }, to: 0 });
        expect(res.status).toBe(202);
        waiting[n] = res.json as unknown as Pause;
      });

      // Load on every replica, A included, until the end: polls and new executions.
      const failures: string[] = [];
      const seen: Response[] = [];
      /** Executions A accepted (202) after it was sent SIGTERM: they must go on elsewhere too. */
      const startedOnStoppingA: Pause[] = [];
      let stopSent = false;
      let loading = true;
      const load = Promise.all(
        Array.from({ length: 6 }, async (_, worker) => {
          for (let i = 0; loading; i++) {
            const to = (worker + i) % 3;
            try {
              const res =
                i % 4 === 0
                  ? await set.request('POST', '/v1/workflow', { body: { input_message: 'load' }, to })
                  : await set.request('GET', waiting[i % waiting.length].status_url, { to });
              seen.push(res);
              if (to === 0 && stopSent && res.status === 202)
                startedOnStoppingA.push(res.json as unknown as Pause);
              if (res.status >= 500) failures.push(`${res.status} from replica ${to}: ${res.text}`);
            } catch (err) {
              // A stopped replica refuses connections (a proxy sends the request elsewhere); the others must not.
              if (to !== 0) failures.push(`replica ${to}: ${String(err)}`);
            }
          }
        }),
      );

      try {
        while (seen.length < 30) await new Promise((resolve) => setTimeout(resolve, 10));
        const beforeStop = seen.length;
        stopSent = true;
        const stopped = set.kill(0, 'SIGTERM');
        const t0 = Date.now();
        const exit = await stopped;
        const exitedAfter = Date.now() - t0;

        const next = survivors();
        const all = [...waiting, ...startedOnStoppingA];
        await inPool(all.length, 10, async (n) => {
          const res = await set.request('POST', all[n].response_url, { body: text(`t${n}`), to: next() });
          expect({ n, status: res.status }).toEqual({ n, status: 204 });
        });
        await inPool(all.length, 10, async (n) => {
          const done = await pollUntil(
            set,
            all[n].execution_id,
            {},
            (j) => j.status === 'completed' || j.status === 'failed',
            // Those that waited when A was told to stop, and those A accepted during its shutdown (it
            // records them released): claimed at once by a survivor (checked below against the lease).
            WAIT_MS,
            next,
          );
          const input = n < waiting.length ? `t-${n}` : 'load';
          expect({ n, result: done.result }).toEqual({ n, result: { value: `Hello t${n} (${input})` } });
        });
        const resumedAfter = Date.now() - t0;
        loading = false;
        await load;
        expect(failures).toEqual([]);
        // The load went on through the shutdown and after it.
        expect(seen.length - beforeStop).toBeGreaterThan(30);
        // A stopped cleanly (Nest re-raises SIGTERM once closed), not by its grace timer (exit code 1).
        expect({ exit, output: exit.signal === 'SIGTERM' || exit.code === 0 ? '' : set.output() }).toEqual({
          exit,
          output: '',
        });
        // Every wait went on soon after A's exit: the hand-off released them at once.
        expect(resumedAfter - exitedAfter).toBeLessThan(6 * LEASE_SECONDS * 1000);
      } finally {
        // Stopped whatever happened, or its loop would keep Jest from ending.
        loading = false;
        await load;
      }
    }, 120_000);
  });
});
