import { requires } from '../../../test/utils/requires';
import {
  connectionsNamed,
  killConnections,
  ReplicaServices,
  waitFor,
} from '../../../test/utils/replica-services';
import type { ExecutionEvent } from '../../runtime/execution-event';
import { eventLogContract, type LogBounds } from './event-log.contract';
import { EventLogBudget } from './event-log-budget';
import { RedisEventLogs, type RedisEventLogOptions } from './redis-event-log';
import type { RecordedParts } from './redis-log-entry';
import { RedisExecutionCancels } from '../engine/execution-cancels';
import { ReplicaLiveness } from '../durability/replica-liveness';

const MiB = 1024 * 1024;

requires('redis')('Redis event logs', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  /** The execution records the engine writes (PostgreSQL in a deployment), as these tests record them. */
  const records = new Map<string, RecordedParts>();
  /** Byte bounds under test leave the count bound at its default; else it is low, to trim by count. */
  const optionsOf = (bounds?: LogBounds): RedisEventLogOptions => ({
    maxEvents: bounds ? 100_000 : 100,
    retentionSeconds: 600,
    local: { maxBytes: bounds?.perExecution ?? MiB, budget: new EventLogBudget(bounds?.total ?? 64 * MiB) },
    shared: { maxBytes: bounds?.perExecution ?? MiB, budget: new EventLogBudget(bounds?.total ?? 64 * MiB) },
    records: async (id) => records.get(id),
  });
  const options = optionsOf();
  let prefix = '';
  let contractOptions = options;

  eventLogContract(
    'redis',
    async (bounds) => {
      prefix = services.newPrefix();
      contractOptions = optionsOf(bounds);
      return new RedisEventLogs(await services.redis(prefix), contractOptions);
    },
    {
      // Another process: a connection of its own to the same Redis, under the same prefix.
      makePeer: async () => new RedisEventLogs(await services.redis(prefix), contractOptions),
      recordEnd: (id, end) => {
        if (end.kind === 'completed') records.set(id, { result: end.result });
        if (end.kind === 'failed') records.set(id, { error: end.error });
      },
    },
  );

  it('a follower whose connection is lost resumes after the last event it got: each event once', async () => {
    const prefix = services.newPrefix();
    const writer = new RedisEventLogs(await services.redis(prefix), options).open('e1');
    writer.append({ kind: 'output', value: 'a' });
    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach('e1', true))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    const reader = `${prefix}reader`;
    const blocked = () =>
      connectionsNamed(services.redisUrl, reader).then((c) => c.find((r) => r.blocked && r.cmd === 'xread'));
    // Killed while blocked in XREAD after event 1; event 2 is written while it is away.
    const first = await waitFor('the follower blocked after event 1', async () =>
      seen.length === 1 ? blocked() : undefined,
    );
    await killConnections(services.redisUrl, [first.id]);
    writer.append({ kind: 'output', value: 'b' });
    const again = await waitFor('the follower blocked again', async () => {
      const connection = await blocked();
      return connection && connection.id !== first.id ? connection : undefined;
    });
    expect(again.id).not.toBe(first.id);
    writer.append({ kind: 'completed', result: 'r', streamed: true });
    await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 3 });
    expect(seen.map((e) => [e.seq, e.kind, (e as { value?: unknown }).value])).toEqual([
      [1, 'output', 'a'],
      [2, 'output', 'b'],
      [3, 'completed', undefined],
    ]);
  });

  it('a held log writes nothing to Redis until published; then a follower gets every event, prompts pinned', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const writer = new RedisEventLogs(redis, options).open('held', { held: true });
    writer.append({ kind: 'output', value: 'a' });
    writer.append({ kind: 'interaction_required', interaction: { id: 'i1' } } as never);
    expect(await redis.client.keys(`${prefix}*`)).toEqual([]);

    writer.publish();
    writer.append({ kind: 'output', value: 'b' });
    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach('held', true))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    writer.append({ kind: 'completed', result: 'r', streamed: true });
    await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 4 });
    // `done` is watched on a connection of its own: this subscriber may get the end a moment later.
    await waitFor('the end, on the subscriber', async () => (seen.length === 4 ? seen : undefined));
    expect(seen.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'output'],
      [2, 'interaction_required'],
      [3, 'output'],
      [4, 'completed'],
    ]);
    expect(await redis.client.zcard(`${prefix}events:{held}:pinned`)).toBe(1);
  });

  it('a held log never published leaves nothing in Redis, also once disposed', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const writer = new RedisEventLogs(redis, options).open('plain', { held: true });
    writer.append({ kind: 'output', value: 'a' });
    writer.append({ kind: 'completed', result: 'a', streamed: true });
    await expect(writer.done).resolves.toMatchObject({ seq: 2 });
    writer.dispose();
    await redis.client.ping();
    expect(await redis.client.keys(`${prefix}*`)).toEqual([]);
  });
});

requires('redis')('Redis cancel requests', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  it('a cancel asked on one process reaches every other, with its reason', async () => {
    const prefix = services.newPrefix();
    const heard: string[][] = [];
    let bothHeard!: () => void;
    const both = new Promise<void>((resolve) => (bothHeard = resolve));
    for (const name of ['a', 'c']) {
      const cancels = new RedisExecutionCancels(await services.redis(prefix));
      await cancels.listen((id, reason) => {
        if (heard.push([name, id, reason]) === 2) bothHeard();
      });
    }
    const b = new RedisExecutionCancels(await services.redis(prefix));
    expect(await b.request('e1', 'cancelled by client')).toBe(true);
    await both;
    expect(heard.sort()).toEqual([
      ['a', 'e1', 'cancelled by client'],
      ['c', 'e1', 'cancelled by client'],
    ]);
  });
});

requires('redis')('Replica leases in Redis', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  it('a replica is alive while it renews its lease, presumed dead once it lapses, and gone at once when it leaves', async () => {
    const redis = await services.redis(services.newPrefix());
    const a = new ReplicaLiveness(redis, 'a', 600);
    const b = new ReplicaLiveness(redis, 'b', 600);
    await a.announce();
    await b.announce();
    expect(await a.alive(['a', 'b', 'never'])).toEqual(new Set(['a', 'b']));

    // b keeps renewing (as its heartbeat would, also on a loaded machine), a does not.
    await waitFor('a to lapse', async () => {
      expect(await b.renew()).toBe(true);
      return (await b.alive(['a'])).size === 0 ? true : undefined;
    });
    expect(await b.renew()).toBe(true);
    expect(await b.alive(['a', 'b'])).toEqual(new Set(['b']));
    // a finds out when it renews (its executions may have been claimed meanwhile), and is back.
    expect(await a.renew()).toBe(false);
    expect(await b.alive(['a'])).toEqual(new Set(['a']));

    const released: string[] = [];
    await a.onReleased(() => released.push('told'));
    await b.leave();
    expect(await a.alive(['b'])).toEqual(new Set());
    await waitFor('the release to be told', async () => (released.length ? true : undefined));
  });
});
