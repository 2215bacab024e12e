import type { ExecutionEvent } from '../../runtime/execution-event';
import { EventLogBudget } from './event-log-budget';
import { ExecutionEventLog } from './execution-event-log';

function collect(log: ExecutionEventLog, afterSeq?: number) {
  const seen: ExecutionEvent[] = [];
  const unsubscribe = log.subscribe((e) => seen.push(e), afterSeq);
  return { seen, unsubscribe };
}

describe('ExecutionEventLog', () => {
  it('numbers events from 1 in the order they are appended', () => {
    const log = new ExecutionEventLog();
    expect(log.append({ kind: 'output', value: 'a' })?.seq).toBe(1);
    expect(log.append({ kind: 'output', value: 'b' })?.seq).toBe(2);
  });

  it('replays what a late subscriber missed, then delivers new events live', () => {
    const log = new ExecutionEventLog();
    const early = collect(log);
    log.append({ kind: 'output', value: 'a' });
    log.append({ kind: 'output', value: 'b' });
    const late = collect(log);
    expect(late.seen.map((e) => e.seq)).toEqual([1, 2]);
    log.append({ kind: 'output', value: 'c' });
    expect(late.seen).toEqual(early.seen);
    expect(late.seen.map((e) => (e.kind === 'output' ? e.value : e.kind))).toEqual(['a', 'b', 'c']);
  });

  it('replays only events after afterSeq (a reconnecting client resumes)', () => {
    const log = new ExecutionEventLog();
    for (const value of ['a', 'b', 'c']) log.append({ kind: 'output', value });
    const resumed = collect(log, 2);
    log.append({ kind: 'output', value: 'd' });
    expect(resumed.seen.map((e) => e.seq)).toEqual([3, 4]);
    expect(collect(log, 4).seen).toEqual([]);
  });

  it('stops delivering to a subscriber that unsubscribed', () => {
    const log = new ExecutionEventLog();
    const sub = collect(log);
    log.append({ kind: 'output', value: 'a' });
    sub.unsubscribe();
    log.append({ kind: 'output', value: 'b' });
    expect(sub.seen.map((e) => e.seq)).toEqual([1]);
  });

  it.each([
    { kind: 'completed', result: { value: 'done' }, streamed: false },
    { kind: 'failed', error: { message: 'boom', type: 'WorkflowError' } },
    { kind: 'cancelled', reason: 'client went away' },
  ] as const)('done resolves with the terminal event ($kind)', async (terminal) => {
    const log = new ExecutionEventLog();
    log.append({ kind: 'output', value: 'a' });
    expect(log.terminal).toBeUndefined();
    log.append(terminal);
    await expect(log.done).resolves.toEqual({ ...terminal, seq: 2 });
    expect(log.terminal).toEqual({ ...terminal, seq: 2 });
  });

  it('done is still pending before the terminal event', async () => {
    const log = new ExecutionEventLog();
    log.append({ kind: 'output', value: 'a' });
    const race = await Promise.race([
      log.done.then(() => 'done'),
      new Promise((r) => setTimeout(r, 20, 'pending')),
    ]);
    expect(race).toBe('pending');
  });

  it('accepts nothing after the terminal event', async () => {
    const log = new ExecutionEventLog();
    const live = collect(log);
    log.append({ kind: 'output', value: 'a' });
    log.append({ kind: 'completed', result: 'a', streamed: false });
    expect(log.append({ kind: 'output', value: 'late' })).toBeUndefined();
    expect(log.append({ kind: 'failed', error: { message: 'late', type: 'E' } })).toBeUndefined();
    expect(live.seen.map((e) => e.kind)).toEqual(['output', 'completed']);
    await expect(log.done).resolves.toMatchObject({ kind: 'completed', seq: 2 });
    expect(log.terminal?.kind).toBe('completed');
  });

  it('gives a subscriber arriving after the end the whole history, ending with the terminal event', () => {
    const log = new ExecutionEventLog();
    log.append({ kind: 'output', value: 'a' });
    log.append({ kind: 'cancelled', reason: 'stop' });
    const after = collect(log);
    expect(after.seen.map((e) => e.kind)).toEqual(['output', 'cancelled']);
    expect(collect(log, 1).seen.map((e) => e.kind)).toEqual(['cancelled']);
    expect(() => after.unsubscribe()).not.toThrow();
  });
});

describe('ExecutionEventLog bounds', () => {
  const text = (events: ExecutionEvent[]) =>
    events.map((e) => (e.kind === 'output' ? (e.value as string) : '')).join('');

  it('a 100k-chunk stream keeps at most its bound; live subscribers still get every chunk', () => {
    const log = new ExecutionEventLog({ maxBytes: 64 * 1024 });
    const live = collect(log);
    let whole = '';
    for (let i = 0; i < 100_000; i++) {
      const chunk = `w${i} `;
      whole += chunk;
      log.append({ kind: 'output', value: chunk });
    }
    expect(live.seen).toHaveLength(100_000);
    expect(log.keptBytes).toBeLessThanOrEqual(64 * 1024);
    const late = collect(log).seen;
    expect(late[0]).toMatchObject({ kind: 'events_dropped' });
    const dropped = (late[0] as { count: number }).count;
    const replayed = text(late.slice(1));
    expect(whole.endsWith(replayed)).toBe(true);
    expect(replayed.length).toBeGreaterThan(10_000);
    // what was dropped and what is replayed add up to the whole stream, nothing twice
    expect(whole.slice(0, whole.length - replayed.length).split(' ').length - 1).toBe(dropped);
  });

  it('a re-attacher resuming inside a merged run gets exactly the chunks after its Last-Event-ID', () => {
    const log = new ExecutionEventLog();
    for (let i = 1; i <= 1000; i++) log.append({ kind: 'output', value: `${i},` });
    const resumed = collect(log, 700).seen;
    expect(text(resumed)).toBe(Array.from({ length: 300 }, (_, i) => `${i + 701},`).join(''));
    expect(resumed.length).toBeLessThan(300);
    expect(resumed[resumed.length - 1].seq).toBe(1000);
  });

  it('keeps an open question even when the events around it are dropped', () => {
    const log = new ExecutionEventLog({ maxBytes: 4096 });
    log.append({ kind: 'output', value: 'before' });
    log.append({ kind: 'interaction_required', interactionId: 'i1', prompt: { text: 'Name?' } });
    for (let i = 0; i < 2000; i++) log.append({ kind: 'output', value: `chunk ${i} ` });
    const late = collect(log).seen;
    expect(late.map((e) => e.kind).slice(0, 2)).toEqual(['events_dropped', 'interaction_required']);
    expect(late[0]).toMatchObject({ count: expect.any(Number) });
    expect((late[0] as { count: number }).count).toBeGreaterThan(1000);
  });

  it('logs share one process-wide budget: the oldest give up their oldest events first', () => {
    const budget = new EventLogBudget(16 * 1024);
    const old = new ExecutionEventLog({ maxBytes: 1024 * 1024, budget });
    const young = new ExecutionEventLog({ maxBytes: 1024 * 1024, budget });
    for (let i = 0; i < 500; i++) old.append({ kind: 'step', step: { n: i, pad: 'x'.repeat(20) } as never });
    for (let i = 0; i < 500; i++) young.append({ kind: 'output', value: 'y'.repeat(20) });
    expect(budget.usedBytes).toBeLessThanOrEqual(16 * 1024);
    expect(collect(old).seen[0]).toMatchObject({ kind: 'events_dropped' });
    old.dispose();
    young.dispose();
    expect(budget.usedBytes).toBe(0);
  });

  it("finished runs' ends do not take a live run's room: it keeps every event for a late subscriber", () => {
    const budget = new EventLogBudget(16 * 1024);
    const limits = { maxBytes: 1024 * 1024, budget };
    // Ends far larger together than the budget (a kept result each), which are never given up.
    const finished = Array.from({ length: 50 }, () => {
      const log = new ExecutionEventLog(limits);
      log.append({ kind: 'output', value: 'x'.repeat(100) });
      log.append({ kind: 'completed', result: 'r'.repeat(2000), streamed: true });
      return log;
    });
    const live = new ExecutionEventLog(limits);
    for (let i = 0; i < 100; i++) live.append({ kind: 'output', value: `${i} ` });
    const late = collect(live).seen;
    expect(late.map((e) => e.kind)).not.toContain('events_dropped');
    expect(late.map((e) => (e.kind === 'output' ? e.value : '')).join('')).toBe(
      Array.from({ length: 100 }, (_, i) => `${i} `).join(''),
    );
    expect(budget.usedBytes).toBeLessThanOrEqual(16 * 1024);
    // Each finished log still ends a late subscriber's replay.
    expect(collect(finished[0]).seen.at(-1)).toMatchObject({ kind: 'completed', result: 'r'.repeat(2000) });
    for (const log of [...finished, live]) log.dispose();
    expect(budget.usedBytes).toBe(0);
  });
});
