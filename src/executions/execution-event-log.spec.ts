import type { ExecutionEvent } from '../core/events/execution-event';
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
