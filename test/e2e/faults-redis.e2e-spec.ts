import { ownRedisReplicas, type Pause } from '../utils/confirming-agents';
import { expectNumbered } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { holdMachineLock } from '../utils/machine-lock';
import { requires } from '../utils/requires';
import { eventually } from '../utils/test-app';
import { START_MS, WAIT_MS } from '../utils/timing';

/**
 * Redis, which carries the event logs and wake-ups of several replicas, restarts empty while agents
 * wait for a person (issue 31), and a replica dies after that. A redis-server of the test's own, killed
 * and started again; the machine's PostgreSQL stays up. The 30 s outage is faults-redis-outage's.
 * Needs `npm run build`.
 */
const LEASE_SECONDS = 2;
const EACH = 4;

requires('postgres')('Redis restarted empty while agents wait for a person', () => {
  holdMachineLock('postgres-heavy');
  const suite = ownRedisReplicas('faults-redis', LEASE_SECONDS);

  it(
    'Redis restarted empty: every replica is ready again, every wait is answered on the other replica and completes, each model call made once',
    async () => {
      const { llm, redis, set, agents } = suite;
      const before = llm.requests.length;
      const waiting = await agents.waiting('restart', EACH);
      await agents.until('/health/ready', 0, 0, (r) => r.status === 200);

      await redis.down();
      const restarted = Date.now();
      await redis.up();
      for (const to of [0, 1]) await agents.until('/health/ready', to, 0, (r) => r.status === 200);
      const readyMs = Date.now() - restarted;

      // Longer than a lease: a replica that stalled meanwhile (a loaded machine) gave its runs to the other
      // one; none runs twice (each model call made once, below).
      await new Promise((resolve) => setTimeout(resolve, 2 * LEASE_SECONDS * 1000));
      // A stream re-attached after its log was lost: shown the pending prompt again (read from the
      // record), and it goes on once the run publishes again (below).
      const reattached = await openStream(`${set.url(1)}/executions/${waiting[0].execution_id}/stream`, {
        headers: { ...agents.asUser(0), 'Last-Event-ID': '1' },
      });
      expect(reattached.status).toBe(200);
      const again = await reattached.nextEvent<Record<string, unknown>>('interaction_required');
      expect(again).toMatchObject({
        interaction_id: waiting[0].interaction_id,
        response_url: waiting[0].response_url,
      });
      for (const [n, pause] of waiting.entries()) {
        const res = await agents.answer(pause, n, (n + 1) % 2);
        expect({ n, status: res.status, body: res.text }).toEqual({ n, status: 204, body: '' });
      }
      await agents.complete(waiting, 'restart');
      // Told what it missed (the log restarted empty), then the rest of the run to its result, no number
      // twice. The prompt comes first, or after that notice when a replica stalled past its lease (a
      // loaded machine) and the other took the run over: it publishes the prompt again.
      await reattached.end(WAIT_MS);
      expect(reattached.frames.filter((f) => f.event === 'events_dropped')).toHaveLength(1);
      expectNumbered(reattached.frames);
      expect(reattached.text).toContain('restart-0: no');
      expect(llm.requests.length - before).toBe(2 * EACH);
      expect(set.exited()).toEqual([]);
      process.stdout.write(`faults-redis: Redis restarted empty, every replica ready ${readyMs} ms later\n`);
    },
    6 * START_MS,
  );

  it(
    'Redis restarted empty, then the replica running a waiting agent dies: the replica taking it over shows the prompt again and numbers what follows after every event a client saw',
    async () => {
      const { llm, redis, set, agents } = suite;
      const before = llm.requests.length;
      const res = await agents.send('POST', '/v1/workflow', 0, 0, { input_message: 'taken-0' });
      expect(res.status).toBe(202);
      const pause = res.json as unknown as Pause;
      // A client following the run from the other replica since before Redis lost its log.
      const early = await openStream(`${set.url(1)}/executions/${pause.execution_id}/stream`, {
        headers: agents.asUser(0),
      });
      const shown = await early.next((f) => f.event === 'interaction_required');

      await redis.down();
      await redis.up();
      for (const to of [0, 1]) await agents.until('/health/ready', to, 0, (r) => r.status === 200);
      const claimedBefore = await agents.claimed(1);
      await set.kill(0, 'SIGKILL');
      await eventually(async () => expect(await agents.claimed(1)).toBeGreaterThan(claimedBefore));

      // Re-attached after the first event: told what it cannot have, shown the prompt again.
      const late = await openStream(`${set.url(1)}/executions/${pause.execution_id}/stream`, {
        headers: { ...agents.asUser(0), 'Last-Event-ID': '1' },
      });
      expect(await late.nextEvent('interaction_required')).toMatchObject({
        interaction_id: pause.interaction_id,
      });
      const answered = await agents.answer(pause, 0, 1);
      expect(answered.status).toBe(204);
      await agents.complete([pause], 'taken');
      for (const stream of [early, late]) {
        await stream.end(WAIT_MS);
        expectNumbered(stream.frames);
        expect(stream.text).toContain('taken-0: no');
      }
      // What followed the answer reached the early client too: numbered after the prompt it was shown.
      const after = early.frames.filter((f) => f.id! > shown.id!);
      expect(after.some((f) => f.raw.includes('"TOOL_END"') && f.raw.includes('ask_confirmation'))).toBe(
        true,
      );
      expect(late.frames.filter((f) => f.event === 'events_dropped')).toHaveLength(1);
      expect(llm.requests.length - before).toBe(2);
    },
    6 * START_MS,
  );
});
