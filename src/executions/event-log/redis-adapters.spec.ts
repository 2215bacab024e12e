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
import { RedisEventLogs, type RedisEventLogOptions } from './redis-event-logs';
import type { RecordedParts } from './redis-log-entry';

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

  it('a follower of a log Redis lost while the run waits for a person is shown the prompt again (from the record), then what it missed and what follows', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const prompt = { input_type: 'text', text: 'Name?' };
    const writer = new RedisEventLogs(redis, options).open('lost');
    writer.append({ kind: 'output', value: 'a' });
    writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt });
    records.set('lost', { openInteractionId: 'i1', interactions: { i1: { prompt, status: 'open' } } });
    await waitFor('the prompt in Redis', async () =>
      (await redis.client.xlen(`${prefix}events:{lost}`)) === 2 ? true : undefined,
    );
    // Redis restarted empty.
    await redis.client.del(`${prefix}events:{lost}`, `${prefix}events:{lost}:pinned`);

    // A client that had event 1 re-attaches on another replica.
    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach('lost', true))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event), 1);
    await waitFor('the prompt again', async () => (seen.length === 1 ? seen : undefined));
    expect(seen).toEqual([{ kind: 'interaction_required', interactionId: 'i1', prompt, seq: 1 }]);

    // Answered, the run goes on: the follower is told what the lost log held, then gets the rest.
    records.delete('lost');
    writer.append({ kind: 'output', value: 'b' });
    writer.append({ kind: 'completed', result: 'r', streamed: true });
    await waitFor('the end', async () => (seen.length === 4 ? seen : undefined));
    expect(seen.slice(1).map((e) => [e.seq, e.kind])).toEqual([
      [2, 'events_dropped'],
      [3, 'output'],
      [4, 'completed'],
    ]);
  });

  it('a follower of a log Redis lost while the run waits for an OAuth consent is shown the consent again (from the record), once', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const oauth = { authUrl: 'https://idp.example/authorize?state=s1', state: 's1', provider: 'calendar' };
    const writer = new RedisEventLogs(redis, options).open('consent');
    writer.append({ kind: 'oauth_required', ...oauth });
    records.set('consent', { status: 'oauth_required', oauth });
    await waitFor('the consent in Redis', async () =>
      (await redis.client.xlen(`${prefix}events:{consent}`)) === 1 ? true : undefined,
    );
    // Redis restarted empty.
    await redis.client.del(`${prefix}events:{consent}`, `${prefix}events:{consent}:pinned`);

    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach(
      'consent',
      true,
    ))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    await waitFor('the consent again', async () => (seen.length === 1 ? seen : undefined));
    expect(seen).toEqual([{ kind: 'oauth_required', ...oauth, seq: 0 }]);

    // Consented, the run goes on: the consent is not shown twice, the rest follows.
    records.delete('consent');
    writer.append({ kind: 'oauth_resolved', state: 's1', provider: 'calendar' });
    writer.append({ kind: 'completed', result: 'r', streamed: false });
    await waitFor('the end', async () => (seen.at(-1)?.kind === 'completed' ? seen : undefined));
    expect(seen.filter((e) => e.kind === 'oauth_required')).toHaveLength(1);
    expect(seen.at(-1)).toMatchObject({ kind: 'completed', seq: 3 });
  });

  it('a prompt shown from the record because its event was not written yet is not shown twice', async () => {
    const prefix = services.newPrefix();
    const prompt = { input_type: 'text', text: 'Name?' };
    records.set('racing', { openInteractionId: 'i1', interactions: { i1: { prompt, status: 'open' } } });
    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach(
      'racing',
      true,
    ))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    const writer = new RedisEventLogs(await services.redis(prefix), options).open('racing');
    writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt });
    writer.append({ kind: 'completed', result: 'r', streamed: true });
    await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 2 });
    await waitFor('the end, on the subscriber', async () =>
      seen.at(-1)?.kind === 'completed' ? seen : undefined,
    );
    expect(seen.map((e) => [e.seq, e.kind])).toEqual([
      [0, 'interaction_required'],
      [2, 'completed'],
    ]);
    records.delete('racing');
  });

  it('a held log writes nothing to Redis until published; then a follower gets every event', async () => {
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
    // Nothing was trimmed: the prompt is in the Stream only, not kept aside too.
    expect(await redis.client.exists(`${prefix}events:{held}:pinned`)).toBe(0);
  });

  it('a run waiting on a prompt holds its events once, with no slack: about 1 KB in Redis, not 6', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const writer = new RedisEventLogs(redis, options).open('parked');
    writer.append({ kind: 'output', value: 'before the question' });
    writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } } as never);
    const key = `${prefix}events:{parked}`;
    await waitFor('the prompt in the Stream', async () =>
      (await redis.client.xlen(key)) === 2 ? true : undefined,
    );
    expect(await redis.client.keys(`${prefix}*`)).toEqual([key]);
    const used = Number(await redis.client.memory('USAGE', key, 'SAMPLES', '0'));
    expect(used).toBeLessThan(1500);
    expect(await redis.client.ttl(key)).toBeGreaterThan(500);
    // Rewritten whole: a follower reads every entry, and the writer goes on after them.
    writer.append({ kind: 'completed', result: 'r', streamed: true });
    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach(
      'parked',
      false,
    ))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 3 });
    await waitFor('every event', async () => (seen.length === 3 ? seen : undefined));
  });

  it("a prompt costs Redis its entry, the Stream's expiry and the compaction, sent by its SHA1 once Redis holds it", async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    // What the writer sent, as it went out (ioredis sends a script whole the first time on a connection).
    const sent: string[] = [];
    const send = redis.client.sendCommand.bind(redis.client);
    jest.spyOn(redis.client, 'sendCommand').mockImplementation((command, stream) => {
      const reply = send(command, stream);
      const { name, args } = command as unknown as { name: string; args: unknown[] };
      sent.push(name === 'expire' ? `expire ${String(args[0]).slice(prefix.length)}` : name);
      return reply;
    });
    const writer = new RedisEventLogs(redis, options).open('asks');
    const key = `${prefix}events:{asks}`;
    const look = (await services.redis(prefix)).client;
    const entries = (n: number) => async () => ((await look.xlen(key)) === n ? true : undefined);
    writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } } as never);
    await waitFor('the first prompt', entries(1));
    expect(sent).toEqual(['xadd', 'expire events:{asks}', 'eval']);
    sent.length = 0;

    writer.append({
      kind: 'interaction_resolved',
      interactionId: 'i1',
      response: { type: 'text', text: 'A' },
    });
    writer.append({ kind: 'interaction_required', interactionId: 'i2', prompt: { text: 'Age?' } } as never);
    await waitFor('the second prompt', entries(3));
    expect(sent).toEqual(['multi', 'xadd', 'xadd', 'expire events:{asks}', 'evalsha', 'exec']);
    expect(await look.keys(`${prefix}*`)).toEqual([key]);
    expect(await look.ttl(key)).toBeGreaterThan(500);
  });

  it('a prompt in a log taken over is kept aside once the new writer trims it: a late re-attacher still gets it', async () => {
    const prefix = services.newPrefix();
    const first = new RedisEventLogs(await services.redis(prefix), options).open('taken');
    first.append({ kind: 'output', value: 'x' });
    first.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } } as never);
    const key = `${prefix}events:{taken}`;
    const redis = await services.redis(prefix);
    await waitFor('the prompt', async () => ((await redis.client.xlen(key)) === 2 ? true : undefined));
    // Another replica goes on with it (count bound 100): the prompt is trimmed away by its events.
    const second = await new RedisEventLogs(await services.redis(prefix), options).resume('taken');
    for (let i = 0; i < 300; i++) second.append({ kind: 'output', value: i });
    second.append({ kind: 'completed', result: null, streamed: true });
    const peer = new RedisEventLogs(await services.redis(prefix), options);
    const ended = await waitFor('the end', async () => {
      const attached = await peer.attach('taken', false);
      return attached?.terminal ? attached : undefined;
    });
    const seen: ExecutionEvent[] = [];
    ended.subscribe((event) => seen.push(event), 0);
    await waitFor('the end, replayed', async () => (seen.at(-1)?.kind === 'completed' ? seen : undefined));
    expect(seen[0]).toMatchObject({ kind: 'events_dropped' });
    expect(seen[1]).toMatchObject({ kind: 'interaction_required', seq: 2, interactionId: 'i1' });
    // Kept aside as long as the Stream is kept.
    expect(await redis.client.ttl(`${key}:pinned`)).toBeGreaterThan(500);
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
