import { FakeLlm, reply, type ModelRequest, type Reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { openStream } from '../utils/live-sse';
import { holdMachineLock } from '../utils/machine-lock';
import { metricValue } from '../utils/metrics';
import { OwnRedis } from '../utils/own-redis';
import { ReplicaProcesses, type Response } from '../utils/replica-processes';
import { requires } from '../utils/requires';
import { START_MS, WAIT_MS } from '../utils/timing';

/**
 * Redis, which carries the event logs and wake-ups of several replicas, restarts empty or is away for
 * 30 s while agents wait for a person (issue 31). A redis-server of the test's own, killed and started
 * again; the machine's PostgreSQL stays up. Needs `npm run build`.
 */
const LEASE_SECONDS = 2;
const OUTAGE_MS = 30_000;
const EACH = 4;
const asUser = (n: number) => ({ authorization: `Bearer nvapi-faults-redis-${n}` });
const choice = (n: number) => (n % 2 ? 'yes' : 'no');

interface Pause {
  execution_id: string;
  interaction_id: string;
  response_url: string;
  status_url: string;
}

const inputOf = (request: ModelRequest) =>
  request.body.messages.find((m) => m.role === 'user')?.content ?? '';

/** Asked first, the agent asks the person to confirm; given the answer, it ends with it. */
function agentModel(request: ModelRequest): Reply {
  const last = request.body.messages.at(-1)!;
  const input = inputOf(request);
  if (last.role === 'user') {
    return reply.tools([{ name: 'ask_confirmation', arguments: { question: `Go on with ${input}?` } }]);
  }
  const answer = JSON.parse(last.content ?? '{}') as { selected_option_id?: string };
  return reply.text(`${input}: ${answer.selected_option_id}`);
}

requires('postgres')('Redis restarted empty or unreachable while agents wait for a person', () => {
  holdMachineLock('postgres-heavy');
  let llm: FakeLlm;
  let redis: OwnRedis;
  let set: ReplicaProcesses;
  /** Every response the test got: none may be a 5xx other than 503. */
  const statuses: number[] = [];

  const send = async (
    method: string,
    path: string,
    to: number,
    n: number,
    body?: unknown,
  ): Promise<Response> => {
    const res = await set.request(method, path, { to, headers: asUser(n), body });
    statuses.push(res.status);
    return res;
  };

  const until = (path: string, to: number, n: number, done: (r: Response) => boolean, within = WAIT_MS) =>
    set.until(path, to, done, { within, everyMs: 200, send: () => send('GET', path, to, n) });

  /** `EACH` agents waiting in ask_confirmation, started on both replicas in turn. */
  async function waitingAgents(tag: string): Promise<Pause[]> {
    const waiting: Pause[] = [];
    for (let n = 0; n < EACH; n++) {
      const res = await send('POST', '/v1/workflow', n % 2, n, { input_message: `${tag}-${n}` });
      expect({ n, status: res.status }).toEqual({ n, status: 202 });
      waiting.push(res.json as unknown as Pause);
    }
    return waiting;
  }

  async function answer(pause: Pause, n: number, to: number): Promise<Response> {
    return send('POST', pause.response_url, to, n, {
      response: { type: 'radio', selected_option: { id: choice(n) } },
    });
  }

  async function completes(waiting: Pause[], tag: string): Promise<void> {
    for (const [n, pause] of waiting.entries()) {
      const done = await until(
        pause.status_url,
        (n + 1) % 2,
        n,
        (r) => r.status === 200 && r.json.status !== 'running' && r.json.status !== 'waiting_for_input',
        2 * WAIT_MS,
      );
      expect({ n, body: done.json }).toEqual({
        n,
        body: {
          execution_id: pause.execution_id,
          status: 'completed',
          result: { value: `${tag}-${n}: ${choice(n)}` },
        },
      });
    }
  }

  beforeAll(async () => {
    llm = await FakeLlm.start();
    llm.respondWith(agentModel);
    redis = await OwnRedis.start();
    const config = agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['ask_confirmation'] },
      { ask_confirmation: { _type: 'ask_confirmation' } },
    );
    set = await ReplicaProcesses.start(2, config, {
      general: { executions: { lease_seconds: LEASE_SECONDS } },
      redisUrl: () => redis.url,
    });
  }, 3 * START_MS);

  afterAll(async () => {
    await set?.close();
    await redis?.down();
    await llm?.close();
  });

  afterEach(() => {
    // 503 (with Retry-After) is the only 5xx a client may meet during an outage.
    expect(statuses.filter((s) => s >= 500 && s !== 503)).toEqual([]);
  });

  it(
    'Redis restarted empty: every replica is ready again, every wait is answered on the other replica and completes, each model call made once',
    async () => {
      const before = llm.requests.length;
      const waiting = await waitingAgents('restart');
      await until('/health/ready', 0, 0, (r) => r.status === 200);

      await redis.down();
      const restarted = Date.now();
      await redis.up();
      for (const to of [0, 1]) await until('/health/ready', to, 0, (r) => r.status === 200);
      const readyMs = Date.now() - restarted;

      // Longer than a lease: no replica gave its runs away, none took another's twice.
      await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_SECONDS * 1000));
      // A stream re-attached after its log was lost: shown the pending prompt again (read from the
      // record), and it goes on once the run publishes again (below).
      const reattached = await openStream(`${set.url(1)}/executions/${waiting[0].execution_id}/stream`, {
        headers: { ...asUser(0), 'Last-Event-ID': '1' },
      });
      expect(reattached.status).toBe(200);
      const again = await reattached.nextEvent<Record<string, unknown>>('interaction_required');
      expect(again).toMatchObject({
        interaction_id: waiting[0].interaction_id,
        response_url: waiting[0].response_url,
      });
      for (const [n, pause] of waiting.entries()) {
        const res = await answer(pause, n, (n + 1) % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      await completes(waiting, 'restart');
      // Told what it missed (the log restarted empty), then the rest of the run to its result.
      await reattached.next((f) => f.event === 'events_dropped', WAIT_MS);
      await reattached.end(WAIT_MS);
      expect(reattached.text).toContain('restart-0: no');
      expect(llm.requests.length - before).toBe(2 * EACH);
      expect(set.exited()).toEqual([]);
      process.stdout.write(`faults-redis: Redis restarted empty, every replica ready ${readyMs} ms later\n`);
    },
    6 * START_MS,
  );

  it(
    `Redis unreachable ${OUTAGE_MS / 1000} s: readiness 503, answers accepted with 204 during it are delivered once it is back, nothing else is a 5xx but 503`,
    async () => {
      const before = llm.requests.length;
      const waiting = await waitingAgents('outage');
      // Two more, cancelled while Redis is away: one on the replica running it, one on the other.
      const toCancel: Pause[] = [];
      for (const n of [EACH + 1, EACH + 2]) {
        const res = await send('POST', '/v1/workflow', n % 2, n, { input_message: `cancel-${n}` });
        expect({ n, status: res.status }).toEqual({ n, status: 202 });
        toCancel.push(res.json as unknown as Pause);
      }
      const fencings = () =>
        metricValue(set.url((EACH + 1) % 2), 'interlude_durable_runs', { event: 'fenced' });
      const fencedBefore = await fencings();

      await redis.down();
      const outageStarted = Date.now();
      for (const to of [0, 1]) await until('/health/ready', to, 0, (r) => r.status === 503);
      const downMs = Date.now() - outageStarted;
      const redisUp = (to: number) =>
        metricValue(set.url(to), 'interlude_dependency_up', { dependency: 'redis' });
      const reconnects = (to: number) =>
        metricValue(set.url(to), 'interlude_dependency_reconnects', { dependency: 'redis' });
      const reconnectsBefore = [await reconnects(0), await reconnects(1)];
      // What an operator sees: /metrics says Redis is down (PostgreSQL up), and the log said it once.
      for (const to of [0, 1]) {
        expect(await redisUp(to)).toBe(0);
        expect(await metricValue(set.url(to), 'interlude_dependency_up', { dependency: 'postgres' })).toBe(1);
      }
      expect(set.output()).toMatch(/commands\): .*; reconnecting/);

      // The record is in PostgreSQL: a poll works, an answer is accepted (on either replica).
      const poll = await send('GET', waiting[0].status_url, 1, 0);
      expect(poll.status).toBe(200);
      const during = [0, 1];
      for (const n of during) {
        const res = await answer(waiting[n], n, (n + 1) % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      // A cancel: done on the replica running it; on the other, 503 with Retry-After (the request to
      // that replica goes over Redis), never a 500, and sent again once Redis is back.
      const cancels = [];
      for (const [k, pause] of toCancel.entries()) {
        const n = EACH + 1 + k;
        const res = await send(
          'DELETE',
          `/executions/${pause.execution_id}`,
          k === 0 ? n % 2 : (n + 1) % 2,
          n,
        );
        cancels.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      }
      // Unless that replica stopped acting on its runs during the outage (self-fenced: stalled ¾ of a lease,
      // which a loaded CI machine can do): then no replica runs it at that instant, and its cancel goes
      // over Redis like the other's (carried out once Redis is back, checked below).
      const fenced = (await fencings()) > fencedBefore;
      expect(cancels).toEqual([
        fenced
          ? { status: 503, retryAfter: expect.stringMatching(/^\d+$/) }
          : { status: 204, retryAfter: null },
        { status: 503, retryAfter: expect.stringMatching(/^\d+$/) },
      ]);
      // A new run: accepted (its record is in PostgreSQL, it runs to its prompt) or 503 with
      // Retry-After; never a 500, and answered while Redis is still away (not held until it is back).
      const start = await send('POST', '/v1/workflow', 0, EACH, { input_message: `outage-${EACH}` });
      expect(redis.isDown).toBe(true);
      if (start.status === 202) waiting.push(start.json as unknown as Pause);
      else {
        expect({ status: start.status, retryAfter: start.headers.get('retry-after') }).toEqual({
          status: 503,
          retryAfter: expect.stringMatching(/^\d+$/),
        });
      }

      await new Promise((resolve) =>
        setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStarted))),
      );
      await redis.up();
      const back = Date.now();
      for (const to of [0, 1]) await until('/health/ready', to, 0, (r) => r.status === 200, WAIT_MS);
      const readyMs = Date.now() - back;
      for (const to of [0, 1]) {
        expect(await redisUp(to)).toBe(1);
        expect(await reconnects(to)).toBe(reconnectsBefore[to] + 1);
      }

      for (const [n, pause] of waiting.entries()) {
        if (during.includes(n)) continue;
        const res = await answer(pause, n, n % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      await completes(waiting, 'outage');
      for (const [k, pause] of toCancel.entries()) {
        const n = EACH + 1 + k;
        const ended = await until(
          pause.status_url,
          k,
          n,
          (r) => r.status === 200 && r.json.status === 'failed',
        );
        expect({ n, body: ended.json }).toMatchObject({
          n,
          body: { status: 'failed', error: expect.stringMatching(/cancel/i) },
        });
      }
      expect(llm.requests.length - before).toBe(2 * waiting.length + toCancel.length);
      expect(set.exited()).toEqual([]);
      process.stdout.write(
        `faults-redis: Redis away ${OUTAGE_MS} ms: readiness 503 after ${downMs} ms, 200 again ${readyMs} ms after it was back; a run started during it: ${start.status}\n`,
      );
    },
    OUTAGE_MS + 6 * START_MS,
  );
});
