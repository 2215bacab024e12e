import { requires } from '../../../test/utils/requires';
import { connectionsNamed, ReplicaServices, waitFor } from '../../../test/utils/replica-services';
import type { ExecutionEvent } from '../../runtime/execution-event';
import { EventLogBudget } from './event-log-budget';
import { RedisEventLogs, type RedisEventLogOptions } from './redis-event-logs';

const MiB = 1024 * 1024;

requires('redis')("Following another replica's runs: reads and their connections", () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  const options: RedisEventLogOptions = {
    maxEvents: 100,
    retentionSeconds: 600,
    local: { maxBytes: MiB, budget: new EventLogBudget(64 * MiB) },
    shared: { maxBytes: MiB, budget: new EventLogBudget(64 * MiB) },
    records: async () => undefined,
  };

  /** A writer (one replica) and a reader of its logs (another), under a prefix of their own. */
  async function replicas() {
    const prefix = services.newPrefix();
    const writerRedis = await services.redis(prefix);
    const readerRedis = await services.redis(prefix);
    const writer = new RedisEventLogs(writerRedis, options);
    const reader = new RedisEventLogs(readerRedis, options);
    const readers = () => connectionsNamed(services.redisUrl, `${prefix}reader`);
    return { writer, reader, readers, writerRedis, readerRedis };
  }

  /** Follows run `id` on `reader` from the start; what it got, once it got the end. */
  async function followToEnd(logs: RedisEventLogs, id: string): Promise<ExecutionEvent[]> {
    const follower = (await logs.attach(id, true))!;
    const seen: ExecutionEvent[] = [];
    const ended = new Promise<void>((resolve) => {
      const stop = follower.subscribe((event) => {
        seen.push(event);
        if (event.kind === 'completed') {
          stop();
          resolve();
        }
      });
    });
    return ended.then(() => seen);
  }

  it('runs followed one after another are read on one connection: none is opened per stream', async () => {
    const { writer, reader, readers } = await replicas();
    const ids: string[] = [];
    for (const id of ['r1', 'r2', 'r3']) {
      const log = writer.open(id);
      log.append({ kind: 'output', value: `${id} says hi` });
      const following = followToEnd(reader, id);
      await waitFor(`the reader blocked on ${id}`, async () =>
        (await readers()).find((c) => c.blocked && c.cmd === 'xread'),
      );
      ids.push(...(await readers()).map((c) => c.id));
      log.append({ kind: 'completed', result: id, streamed: true });
      const seen = await following;
      expect(seen.map((e) => [e.seq, e.kind, (e as { value?: unknown }).value])).toEqual([
        [1, 'output', `${id} says hi`],
        [2, 'completed', undefined],
      ]);
    }
    expect(new Set(ids).size).toBe(1);
  });

  it("events written in one turn reach a follower in one read: a resumed workflow's burst costs it no second read", async () => {
    const { writer, reader, readers, readerRedis, writerRedis } = await replicas();
    // What the writing replica sends, by command name.
    const written: string[] = [];
    const sendWritten = writerRedis.client.sendCommand.bind(writerRedis.client);
    jest.spyOn(writerRedis.client, 'sendCommand').mockImplementation((command, stream) => {
      written.push((command as { name: string }).name);
      return sendWritten(command, stream);
    });
    // The reads sent on the connection the follower is given (a new one may send its first twice: ioredis
    // queues it until connected), counted from when it waits for the burst.
    let reads = 0;
    const handOut = readerRedis.reader.bind(readerRedis);
    jest.spyOn(readerRedis, 'reader').mockImplementation(() => {
      const connection = handOut();
      const send = connection.sendCommand.bind(connection);
      jest.spyOn(connection, 'sendCommand').mockImplementation((command, stream) => {
        if ((command as { name: string }).name === 'xread') reads++;
        return send(command, stream);
      });
      return connection;
    });
    const blocked = () => readers().then((c) => c.find((r) => r.blocked && r.cmd === 'xread'));
    const log = writer.open('burst');
    log.append({
      kind: 'interaction_required',
      interactionId: 'i1',
      prompt: { input_type: 'text' },
    } as never);
    const seen: ExecutionEvent[] = [];
    (await reader.attach('burst', true))!.subscribe((event) => seen.push(event));
    await waitFor('the follower waiting after the prompt', async () =>
      seen.length === 1 ? blocked() : undefined,
    );
    const before = reads;
    // One entry in a turn goes with no transaction around it.
    expect(written).not.toContain('multi');
    written.length = 0;

    // A resumed workflow, in one turn: the answer, then what it streams.
    log.append({
      kind: 'interaction_resolved',
      interactionId: 'i1',
      response: { type: 'text', text: 'Ann' },
    });
    for (const value of ['hi ', 'Ann', '!']) log.append({ kind: 'output', value });
    await waitFor('the follower waiting after the burst', async () =>
      seen.length === 5 ? blocked() : undefined,
    );
    expect(reads - before).toBe(1);
    expect(written).toEqual(['multi', 'xadd', 'xadd', 'xadd', 'xadd', 'exec']);
    expect(seen.map((e) => e.kind)).toEqual([
      'interaction_required',
      'interaction_resolved',
      'output',
      'output',
      'output',
    ]);
  });

  it('a log disposed in the turn that wrote it leaves nothing in Redis', async () => {
    const { writer, writerRedis } = await replicas();
    const log = writer.open('brief');
    log.append({ kind: 'output', value: 'a' });
    log.append({ kind: 'completed', result: 'r', streamed: true });
    log.dispose();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await writerRedis.client.keys(`${writerRedis.prefix}*`)).toEqual([]);
  });

  it('a follower stopped while its read waits closes that connection; the next follower gets every event of its own run, none of the old', async () => {
    const { writer, reader, readers } = await replicas();
    const old = writer.open('old');
    old.append({ kind: 'output', value: 'old 1' });
    const stale: ExecutionEvent[] = [];
    const stop = (await reader.attach('old', true))!.subscribe((event) => stale.push(event));
    const blocked = await waitFor('the first follower blocked after its event', async () =>
      stale.length === 1 ? (await readers()).find((c) => c.blocked) : undefined,
    );
    stop();
    await waitFor('its connection closed', async () =>
      (await readers()).some((c) => c.id === blocked.id) ? undefined : true,
    );

    const fresh = writer.open('fresh');
    fresh.append({ kind: 'output', value: 'fresh 1' });
    const following = followToEnd(reader, 'fresh');
    // What the stopped follower would have read next, had its read been handed on.
    old.append({ kind: 'output', value: 'old 2' });
    fresh.append({ kind: 'completed', result: 'done', streamed: true });
    expect((await following).map((e) => (e as { value?: unknown }).value ?? e.kind)).toEqual([
      'fresh 1',
      'completed',
    ]);
    expect(stale.map((e) => (e as { value?: unknown }).value)).toEqual(['old 1']);
  });
});
