import { ownRedisReplicas, type Pause } from '../utils/confirming-agents';
import { holdMachineLock } from '../utils/machine-lock';
import { metricValue } from '../utils/metrics';
import { requires } from '../utils/requires';
import { START_MS, WAIT_MS } from '../utils/timing';

/**
 * Redis, which carries the event logs and wake-ups of several replicas, is away for 30 s while agents
 * wait for a person (issue 31). A redis-server of the test's own, killed and started again empty; the
 * machine's PostgreSQL stays up. Needs `npm run build`.
 */
const LEASE_SECONDS = 2;
const OUTAGE_MS = 30_000;
const EACH = 4;

requires('postgres')('Redis unreachable while agents wait for a person', () => {
  holdMachineLock('postgres-heavy');
  const suite = ownRedisReplicas('faults-redis-outage', LEASE_SECONDS);

  it(
    `Redis unreachable ${OUTAGE_MS / 1000} s: readiness 503, answers accepted with 204 during it are delivered once it is back, nothing else is a 5xx but 503`,
    async () => {
      const { llm, redis, set, agents } = suite;
      const before = llm.requests.length;
      const waiting = await agents.waiting('outage', EACH);
      // Two more, cancelled while Redis is away: one on the replica running it, one on the other.
      const toCancel: Pause[] = [];
      for (const n of [EACH + 1, EACH + 2]) {
        const res = await agents.send('POST', '/v1/workflow', n % 2, n, { input_message: `cancel-${n}` });
        expect({ n, status: res.status }).toEqual({ n, status: 202 });
        toCancel.push(res.json as unknown as Pause);
      }
      const fencings = () =>
        metricValue(set.url((EACH + 1) % 2), 'interlude_durable_runs', { event: 'fenced' });
      const fencedBefore = await fencings();
      const claimedBefore = await agents.claimed(1);

      await redis.down();
      const outageStarted = Date.now();
      for (const to of [0, 1]) await agents.until('/health/ready', to, 0, (r) => r.status === 503);
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
      const poll = await agents.send('GET', waiting[0].status_url, 1, 0);
      expect(poll.status).toBe(200);
      const during = [0, 1];
      for (const n of during) {
        const res = await agents.answer(waiting[n], n, (n + 1) % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      // A cancel: done on the replica running it; on the other, 503 with Retry-After (the request to
      // that replica goes over Redis), never a 500, and sent again once Redis is back.
      const cancels = [];
      for (const [k, pause] of toCancel.entries()) {
        const n = EACH + 1 + k;
        const res = await agents.send(
          'DELETE',
          `/executions/${pause.execution_id}`,
          k === 0 ? n % 2 : (n + 1) % 2,
          n,
        );
        cancels.push({ status: res.status, retryAfter: res.headers.get('retry-after') });
      }
      // Unless a replica stalled during the outage (a loaded CI machine can). The one running the first,
      // self-fenced (stalled ¾ of a lease), runs nothing at that instant: its cancel goes over Redis like
      // the other's (carried out once Redis is back, checked below). The other replica, once it took the
      // second run over (its replica stalled a whole lease), cancels it itself.
      const fenced = (await fencings()) > fencedBefore;
      const taken = (await agents.claimed(1)) > claimedBefore;
      const unavailable = { status: 503, retryAfter: expect.stringMatching(/^\d+$/) };
      const done = { status: 204, retryAfter: null };
      expect(cancels).toEqual([
        fenced ? unavailable : done,
        taken && cancels[1].status === 204 ? done : unavailable,
      ]);
      // A new run: accepted (its record is in PostgreSQL, it runs to its prompt) or 503 with
      // Retry-After; never a 500, and answered while Redis is still away (not held until it is back).
      const start = await agents.send('POST', '/v1/workflow', 0, EACH, { input_message: `outage-${EACH}` });
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
      for (const to of [0, 1]) await agents.until('/health/ready', to, 0, (r) => r.status === 200, WAIT_MS);
      const readyMs = Date.now() - back;
      for (const to of [0, 1]) {
        expect(await redisUp(to)).toBe(1);
        expect(await reconnects(to)).toBe(reconnectsBefore[to] + 1);
      }

      for (const [n, pause] of waiting.entries()) {
        if (during.includes(n)) continue;
        const res = await agents.answer(pause, n, n % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      await agents.complete(waiting, 'outage');
      for (const [k, pause] of toCancel.entries()) {
        const n = EACH + 1 + k;
        const ended = await agents.until(
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
