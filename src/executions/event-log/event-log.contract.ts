import { isTerminal, type ExecutionEvent, type ExecutionEventBody } from '../../runtime/execution-event';
import type { EventLog, EventLogs } from './event-log';

const kinds = (events: ExecutionEvent[]) => events.map((e) => `${e.seq}:${e.kind}`);

/** The byte bounds a deployment sets: `max_event_log_bytes_per_execution` and `max_event_log_bytes`. */
export interface LogBounds {
  perExecution: number;
  total: number;
}

export interface EventLogContractOptions {
  /** Adapters shared by several processes: the same logs as another process opens them (same bounds). */
  makePeer?: () => Promise<EventLogs>;
  /**
   * What the engine does before it appends an execution's end: records it. An adapter may leave a
   * result too large for the log in the record, and read it from there.
   */
  recordEnd?: (executionId: string, end: ExecutionEventBody) => Promise<void> | void;
}

/**
 * What every event-log adapter must do: number events in order, replay after a sequence number, then
 * go live, and end with the terminal event; keep what it holds for re-attachers within its byte bounds.
 * A spec per adapter calls this with a factory (default bounds when none are given).
 */
export function eventLogContract(
  name: string,
  makeLogs: (bounds?: LogBounds) => Promise<EventLogs> | EventLogs,
  options: EventLogContractOptions = {},
) {
  const { makePeer } = options;
  describe(`EventLog contract: ${name}`, () => {
    let logs: EventLogs;
    beforeEach(async () => {
      logs = await makeLogs();
    });

    it('numbers events from 1 in the order they were appended', () => {
      const log = logs.open('e1');
      expect(log.append({ kind: 'output', value: 'a' })?.seq).toBe(1);
      expect(log.append({ kind: 'output', value: 'b' })?.seq).toBe(2);
    });

    it('replays the events after a sequence number, then delivers new ones live', () => {
      const log = logs.open('e1');
      log.append({ kind: 'output', value: 'a' });
      log.append({ kind: 'output', value: 'b' });
      const seen: ExecutionEvent[] = [];
      log.subscribe((e) => seen.push(e), 1);
      log.append({ kind: 'output', value: 'c' });
      expect(seen.map((e) => [e.seq, (e as { value?: unknown }).value])).toEqual([
        [2, 'b'],
        [3, 'c'],
      ]);
    });

    it('stops delivering to a listener that unsubscribed', () => {
      const log = logs.open('e1');
      const seen: ExecutionEvent[] = [];
      const stop = log.subscribe((e) => seen.push(e));
      log.append({ kind: 'output', value: 'a' });
      stop();
      log.append({ kind: 'output', value: 'b' });
      expect(kinds(seen)).toEqual(['1:output']);
    });

    it('ends with the terminal event: done resolves with it, later appends are ignored', async () => {
      const log = logs.open('e1');
      log.append({ kind: 'output', value: 'a' });
      log.append({ kind: 'completed', result: 'r', streamed: true });
      expect(log.append({ kind: 'output', value: 'late' })).toBeUndefined();
      await expect(log.done).resolves.toMatchObject({ kind: 'completed', seq: 2, result: 'r' });
      expect(log.terminal?.seq).toBe(2);
      const seen: ExecutionEvent[] = [];
      log.subscribe((e) => seen.push(e));
      expect(kinds(seen)).toEqual(['1:output', '2:completed']);
    });

    it('keeps the logs of different executions apart', () => {
      const a = logs.open('a');
      const b = logs.open('b');
      a.append({ kind: 'output', value: 'a' });
      const seen: ExecutionEvent[] = [];
      b.subscribe((e) => seen.push(e));
      expect(seen).toEqual([]);
      expect(b.append({ kind: 'output', value: 'b' })?.seq).toBe(1);
    });

    if (makePeer) peerCases(() => logs, makePeer);
    byteBoundCases(makeLogs, options);
  });
}

/** Polls `get` until it gives something (at most 5 s). */
async function until<T>(get: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('gave nothing in 5 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Follows `log` from `afterSeq` until its terminal event; resolves with everything it got. */
function followToEnd(log: EventLog, afterSeq: number): Promise<ExecutionEvent[]> {
  return new Promise((resolve) => {
    const seen: ExecutionEvent[] = [];
    log.subscribe((e) => {
      seen.push(e);
      if (isTerminal(e)) resolve(seen);
    }, afterSeq);
  });
}

function peerCases(logs: () => EventLogs, makePeer: () => Promise<EventLogs>) {
  describe('across processes', () => {
    it('another process follows a log after a seq: every later event once, in order, to the end', async () => {
      const writer = logs().open('shared');
      for (const value of ['a', 'b', 'c']) writer.append({ kind: 'output', value });
      const follower = (await (await makePeer()).attach('shared', true))!;
      expect(follower).toBeDefined();
      const followed = followToEnd(follower, 1);
      writer.append({ kind: 'output', value: 'd' });
      writer.append({ kind: 'completed', result: 'r', streamed: true });
      const seen = await followed;
      expect(seen.map((e) => [e.seq, e.kind, (e as { value?: unknown }).value])).toEqual([
        [2, 'output', 'b'],
        [3, 'output', 'c'],
        [4, 'output', 'd'],
        [5, 'completed', undefined],
      ]);
      await expect(follower.done).resolves.toMatchObject({ kind: 'completed', seq: 5, result: 'r' });
      expect(follower.append({ kind: 'output', value: 'not mine' })).toBeUndefined();
    });

    it('a process taking a log over reads what it holds after a seq, and numbers its own events after them and after the seq its run had reached', async () => {
      const writer = logs().open('taken');
      for (const value of ['a', 'b', 'c']) writer.append({ kind: 'output', value });
      expect(writer.appendedSeq).toBe(3);
      const peer = await makePeer();
      const after = await until(async () => {
        const events = await peer.readAfter('taken', 1);
        return events.length === 2 ? events : undefined;
      });
      expect(after.map((e) => [e.seq, e.kind, (e as { value?: unknown }).value])).toEqual([
        [2, 'output', 'b'],
        [3, 'output', 'c'],
      ]);
      const resumed = await peer.resume('taken', 1);
      expect(resumed.appendedSeq).toBe(3);
      expect(resumed.append({ kind: 'output', value: 'd' })?.seq).toBe(4);
      // A log lost with its entries (Redis restarted empty): no number a client saw is given again.
      const lost = await peer.resume('lost', 5);
      expect(lost.appendedSeq).toBe(5);
      expect(lost.append({ kind: 'output', value: 'e' })?.seq).toBe(6);
      expect(await peer.readAfter('never-started', 0)).toEqual([]);
    });

    it('a log that ended is known as ended when attached; unknown executions have nothing to follow', async () => {
      const writer = logs().open('ended');
      writer.append({ kind: 'output', value: 'a' });
      writer.append({ kind: 'failed', error: { message: 'boom', type: 'ValueError' } });
      const peer = await makePeer();
      // The writer's process sends its events on without waiting: the end reaches the peer soon after.
      const follower = await until(async () => {
        const attached = await peer.attach('ended', false);
        return attached?.terminal ? attached : undefined;
      });
      expect(follower.terminal).toMatchObject({ kind: 'failed', seq: 2 });
      await expect(follower.done).resolves.toMatchObject({ kind: 'failed', seq: 2 });
      expect((await followToEnd(follower, 0)).map((e) => `${e.seq}:${e.kind}`)).toEqual([
        '1:output',
        '2:failed',
      ]);
      expect(await peer.attach('never-started', false)).toBeUndefined();
    });

    it('several followers on several processes each get the whole log once', async () => {
      const writer = logs().open('many');
      writer.append({ kind: 'output', value: 'first' });
      const followers = await Promise.all(
        [makePeer(), makePeer()].map(async (p) => (await p).attach('many', true)),
      );
      const followed = followers.map((f) => followToEnd(f!, 0));
      for (let i = 0; i < 50; i++) writer.append({ kind: 'output', value: i });
      writer.append({ kind: 'cancelled', reason: 'enough' });
      for (const seen of await Promise.all(followed)) {
        expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: 52 }, (_, i) => i + 1));
      }
    });

    it('a follower resuming before trimmed events is told how many it missed, and still gets the prompt', async () => {
      const writer = logs().open('long');
      writer.append({ kind: 'output', value: 'x' });
      writer.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } });
      for (let i = 0; i < 3000; i++) writer.append({ kind: 'output', value: i });
      writer.append({ kind: 'completed', result: null, streamed: true });
      const peer = await makePeer();
      const ended = await until(async () => {
        const attached = await peer.attach('long', false);
        return attached?.terminal ? attached : undefined;
      });
      const seen = await followToEnd(ended, 0);
      expect(seen[0]).toMatchObject({ kind: 'events_dropped' });
      expect(seen[1]).toMatchObject({ kind: 'interaction_required', seq: 2, interactionId: 'i1' });
      const rest = seen.slice(2);
      const dropped = (seen[0] as { count: number }).count;
      expect(rest[0].seq).toBe(dropped + 2);
      expect(rest.map((e) => e.seq)).toEqual(Array.from({ length: rest.length }, (_, i) => rest[0].seq + i));
      expect(rest[rest.length - 1]).toMatchObject({ kind: 'completed', seq: 3003 });
    });
  });
}

/**
 * A client re-attaching once the execution ended: through another process where the adapter has
 * them (it reads what the log keeps there), else through the log itself. Everything it gets.
 */
async function reattachAfterEnd(
  log: EventLog,
  id: string,
  makePeer: (() => Promise<EventLogs>) | undefined,
  afterSeq = 0,
): Promise<ExecutionEvent[]> {
  if (!makePeer) return followToEnd(log, afterSeq);
  const peer = await makePeer();
  const ended = await until(async () => {
    const attached = await peer.attach(id, false);
    return attached?.terminal ? attached : undefined;
  });
  return followToEnd(ended, afterSeq);
}

/** The events counted: each replayed one once, each dropped one by its notice's count. */
function seqsAccountedFor(events: ExecutionEvent[]): number {
  return events.reduce((n, e) => n + (e.kind === 'events_dropped' ? e.count : 1), 0);
}

const textOf = (events: ExecutionEvent[]) =>
  events.map((e) => (e.kind === 'output' && typeof e.value === 'string' ? e.value : '')).join('');

function byteBoundCases(
  makeLogs: (bounds?: LogBounds) => Promise<EventLogs> | EventLogs,
  { makePeer, recordEnd }: EventLogContractOptions,
) {
  describe('byte bounds', () => {
    async function end(log: EventLog, id: string, terminal: ExecutionEventBody): Promise<void> {
      await recordEnd?.(id, terminal);
      log.append(terminal);
    }

    it('a long text stream keeps at most the per-execution bound: a late re-attacher is told how many chunks it missed and gets the end of the text', async () => {
      const bound = 16 * 1024;
      const log = (await makeLogs({ perExecution: bound, total: 64 * 1024 * 1024 })).open('long-text');
      let whole = '';
      for (let i = 0; i < 10_000; i++) {
        const chunk = `w${i} `;
        whole += chunk;
        log.append({ kind: 'output', value: chunk });
      }
      await end(log, 'long-text', { kind: 'completed', result: 'done', streamed: true });
      const seen = await reattachAfterEnd(log, 'long-text', makePeer);
      expect(seen[0]).toMatchObject({ kind: 'events_dropped' });
      const dropped = (seen[0] as { count: number }).count;
      const replayed = textOf(seen.slice(1));
      expect(whole.endsWith(replayed)).toBe(true);
      expect(replayed.length).toBeLessThanOrEqual(bound);
      expect(replayed.length).toBeGreaterThan(bound / 8);
      // what was dropped and what is replayed add up to the whole stream, nothing twice
      expect(whole.slice(0, whole.length - replayed.length).split(' ').length - 1).toBe(dropped);
      expect(seen[seen.length - 1]).toMatchObject({ kind: 'completed', seq: 10_001, result: 'done' });
    });

    it('an event larger than the per-execution bound is never replayed (the re-attacher is told), the prompt and the whole result are', async () => {
      const bound = 16 * 1024;
      const big = 'x'.repeat(100_000);
      const log = (await makeLogs({ perExecution: bound, total: 64 * 1024 * 1024 })).open('big-event');
      log.append({ kind: 'output', value: 'before' });
      log.append({ kind: 'step', step: { payload: { data: { input: big } } } as never });
      log.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } });
      log.append({ kind: 'interaction_resolved', interactionId: 'i1', response: { text: 'Ada' } });
      log.append({ kind: 'output', value: 'after' });
      await end(log, 'big-event', { kind: 'completed', result: big, streamed: true });
      const seen = await reattachAfterEnd(log, 'big-event', makePeer);
      expect(seen.some((e) => e.kind === 'step')).toBe(false);
      const prompt = seen.findIndex((e) => e.kind === 'interaction_required');
      expect(seen[prompt]).toMatchObject({ seq: 3, interactionId: 'i1', prompt: { text: 'Name?' } });
      expect(seen.slice(0, prompt).some((e) => e.kind === 'events_dropped')).toBe(true);
      expect(seen[seen.length - 1]).toMatchObject({ kind: 'completed', seq: 6 });
      expect((seen[seen.length - 1] as { result: string }).result).toBe(big);
      expect(seqsAccountedFor(seen)).toBe(6);
    });

    it('logs share the total bound: the oldest gives up its oldest events first, a younger one keeps all of its own', async () => {
      const logs = await makeLogs({ perExecution: 1024 * 1024, total: 32 * 1024 });
      const old = logs.open('old');
      const young = logs.open('young');
      const pad = 'p'.repeat(100);
      for (let i = 0; i < 400; i++) old.append({ kind: 'step', step: { n: i, pad } as never });
      for (let i = 0; i < 50; i++) young.append({ kind: 'step', step: { n: i, pad } as never });
      await end(old, 'old', { kind: 'completed', result: 'old', streamed: false });
      await end(young, 'young', { kind: 'completed', result: 'young', streamed: false });
      const oldSeen = await reattachAfterEnd(old, 'old', makePeer);
      expect(oldSeen[0]).toMatchObject({ kind: 'events_dropped' });
      expect(seqsAccountedFor(oldSeen)).toBe(401);
      const youngSeen = await reattachAfterEnd(young, 'young', makePeer);
      expect(youngSeen.map((e) => e.seq)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    });

    it('a re-attacher resuming inside a merged text run gets exactly the chunks after its seq', async () => {
      const log = (await makeLogs({ perExecution: 1024 * 1024, total: 64 * 1024 * 1024 })).open('merged');
      for (let i = 1; i <= 1000; i++) log.append({ kind: 'output', value: `${i},` });
      await end(log, 'merged', { kind: 'completed', result: null, streamed: true });
      const resumed = await reattachAfterEnd(log, 'merged', makePeer, 700);
      expect(resumed.every((e) => e.kind !== 'events_dropped')).toBe(true);
      const text = Array.from({ length: 300 }, (_, i) => `${i + 701},`).join('');
      expect(textOf(resumed)).toBe(text);
      // merged: fewer events than chunks
      expect(resumed.length).toBeLessThan(300);
      expect(resumed[resumed.length - 1]).toMatchObject({ kind: 'completed', seq: 1001 });
    });
  });
}
