import { requires } from '../../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../../test/utils/replica-services';
import type { ExecutionEvent } from '../../runtime/execution-event';
import type { IntermediateStep } from '../../runtime/intermediate-step';
import { EventLogBudget } from './event-log-budget';
import { LoggedTail } from './logged-tail';
import { RedisEventLogs, type RedisEventLogOptions } from './redis-event-logs';
import type { RecordedParts } from './redis-log-entry';

const KiB = 1024;
const MiB = 1024 * KiB;

/** A tool step as the scripted workflow publishes it: its input in the payload. */
function toolStep(type: 'TOOL_START' | 'TOOL_END', input: unknown, id = 's1'): IntermediateStep {
  return {
    parent_id: 'root',
    function_ancestry: { function_id: 'root', function_name: 'root', parent_id: null, parent_name: null },
    payload: {
      event_type: type,
      event_timestamp: 1,
      span_event_timestamp: 1,
      framework: null,
      name: 'search',
      tags: null,
      metadata: null,
      data: { input, output: type === 'TOOL_END' ? { ok: true } : null },
      usage_info: null,
      UUID: id,
    },
  };
}

requires('redis')('Redis event logs, bounded in bytes', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  const records = new Map<string, RecordedParts>();
  const optionsOf = (perExecution: number, total = 64 * MiB): RedisEventLogOptions => ({
    maxEvents: 100_000,
    retentionSeconds: 600,
    local: { maxBytes: perExecution, budget: new EventLogBudget(total) },
    shared: { maxBytes: perExecution, budget: new EventLogBudget(total) },
    records: async (id) => records.get(id),
  });

  async function memoryUsage(prefix: string): Promise<number> {
    const redis = await services.redis(prefix);
    let bytes = 0;
    for (const key of await redis.client.keys(`${prefix}*`)) {
      bytes += Number(await redis.client.memory('USAGE', key, 'SAMPLES', '0'));
    }
    return bytes;
  }

  it('a 9 MB input echoed by every event takes at most the per-execution bound in Redis; a follower still gets the whole result', async () => {
    const prefix = services.newPrefix();
    const options = optionsOf(MiB);
    const writer = new RedisEventLogs(await services.redis(prefix), options).open('nine');
    const input = 'x'.repeat(9 * MiB);
    // What the demo workflow publishes for such an input: two steps that carry it, text that quotes it.
    writer.append({ kind: 'step', step: toolStep('TOOL_START', { query: input }) });
    writer.append({ kind: 'step', step: toolStep('TOOL_END', { query: input }) });
    for (const word of ['You ', `asked: "${input}". `, 'Lisbon ', 'looks ', 'good.']) {
      writer.append({ kind: 'output', value: word });
    }
    const result = `Plan for "${input}"`;
    records.set('nine', { result });
    writer.append({ kind: 'completed', result, streamed: true });

    const follower = (await new RedisEventLogs(await services.redis(prefix), options).attach('nine', true))!;
    const seen: ExecutionEvent[] = [];
    follower.subscribe((event) => seen.push(event));
    await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 8 });
    await waitFor('the end, on the subscriber', async () => (seen.length === 7 ? true : undefined));
    expect(seen.map((e) => (e.kind === 'events_dropped' ? `dropped ${e.count}` : e.kind))).toEqual([
      'dropped 2',
      'output',
      'dropped 1',
      'output',
      'output',
      'output',
      'completed',
    ]);
    expect((seen[seen.length - 1] as { result: string }).result).toBe(result);
    expect(await memoryUsage(prefix)).toBeLessThan(MiB);
  });

  it('a question larger than the bound is kept as a stand-in: a re-attacher, even after the trim, gets it whole from the record', async () => {
    const prefix = services.newPrefix();
    const options = optionsOf(16 * KiB);
    const writer = new RedisEventLogs(await services.redis(prefix), options).open('asks');
    const prompt = { input_type: 'text', text: `Is this right? ${'z'.repeat(64 * KiB)}` };
    records.set('asks', { interactions: { i1: { prompt } } });
    writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt });
    for (let i = 0; i < 3000; i++) writer.append({ kind: 'step', step: { n: i } as never });
    records.set('asks', { interactions: { i1: { prompt } }, result: 'ok' });
    writer.append({ kind: 'completed', result: 'ok', streamed: false });
    const peer = new RedisEventLogs(await services.redis(prefix), options);
    const ended = await waitFor('the end to be written', async () => {
      const attached = await peer.attach('asks', false);
      return attached?.terminal ? attached : undefined;
    });
    const seen: ExecutionEvent[] = [];
    await new Promise<void>((resolve) =>
      ended.subscribe((event) => {
        seen.push(event);
        if (event.kind === 'completed') resolve();
      }),
    );
    expect(seen[0]).toMatchObject({ kind: 'events_dropped' });
    expect(seen[1]).toEqual({ kind: 'interaction_required', interactionId: 'i1', prompt, seq: 1 });
    expect(await memoryUsage(prefix)).toBeLessThan(2 * 16 * KiB);
  });

  it('a log taken over keeps the bound with what its first replica wrote', async () => {
    const prefix = services.newPrefix();
    const options = optionsOf(16 * KiB);
    const first = new RedisEventLogs(await services.redis(prefix), options).open('taken');
    for (let i = 0; i < 100; i++)
      first.append({ kind: 'step', step: { n: i, pad: 'a'.repeat(100) } as never });
    const redis = await services.redis(prefix);
    await waitFor('the first replica to write its events', async () =>
      (await redis.client.xlen(`${prefix}events:{taken}`)) === 100 ? true : undefined,
    );
    const resumed = await new RedisEventLogs(redis, optionsOf(16 * KiB)).resume('taken');
    for (let i = 0; i < 100; i++)
      resumed.append({ kind: 'step', step: { n: i, pad: 'b'.repeat(100) } as never });
    await redis.client.ping();
    const entries = await redis.client.xrange(`${prefix}events:{taken}`, '-', '+');
    const bytes = entries.reduce((n, [, fields]) => n + Buffer.byteLength(fields[1]) + 16, 0);
    expect(bytes).toBeLessThanOrEqual(16 * KiB);
    expect(Number.parseInt(entries[entries.length - 1][0], 10)).toBe(200);
  });

  it('a log gives back what it counted against the total once disposed, and leaves nothing in Redis', async () => {
    const prefix = services.newPrefix();
    const options = optionsOf(MiB);
    const logs = new RedisEventLogs(await services.redis(prefix), options);
    const log = logs.open('gone');
    for (let i = 0; i < 50; i++) log.append({ kind: 'output', value: `chunk ${i}` });
    expect(options.shared.budget!.usedBytes).toBeGreaterThan(0);
    log.dispose();
    expect(options.shared.budget!.usedBytes).toBe(0);
    const redis = await services.redis(prefix);
    await redis.client.ping();
    expect(await redis.client.keys(`${prefix}*`)).toEqual([]);
  });

  it('a replica taking over reads merged text as its chunks and knows an event too large to keep, so it publishes neither again', async () => {
    const prefix = services.newPrefix();
    const options = optionsOf(16 * KiB);
    const writer = new RedisEventLogs(await services.redis(prefix), options).open('tail');
    for (let i = 0; i < 200; i++) writer.append({ kind: 'output', value: `${i} ` });
    const big = toolStep('TOOL_END', 'y'.repeat(64 * KiB), 'first-run');
    writer.append({ kind: 'step', step: big });
    // What the replay publishes again: the same chunks, the same step (its ids and times its own).
    const replayed = [
      ...Array.from({ length: 50 }, (_, i) => ({ kind: 'output' as const, value: `${150 + i} ` })),
      { kind: 'step' as const, step: { ...toolStep('TOOL_END', 'y'.repeat(64 * KiB), 'replay') } },
    ];
    const peer = new RedisEventLogs(await services.redis(prefix), options);
    const logged = await waitFor('the step to be logged', async () => {
      const events = await peer.readAfter('tail', 150);
      return events.length === 51 ? events : undefined;
    });
    expect(logged.slice(0, 50).map((e) => [e.seq, (e as { value?: unknown }).value])).toEqual(
      Array.from({ length: 50 }, (_, i) => [151 + i, `${150 + i} `]),
    );
    const tail = new LoggedTail(logged);
    expect(replayed.map((e) => tail.repeats(e))).toEqual(replayed.map(() => true));
    expect(tail.exhausted).toBe(true);
  });
});
