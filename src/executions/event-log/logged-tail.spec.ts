import type { ExecutionEventBody } from '../../runtime/execution-event';
import type { IntermediateStep } from '../../runtime/intermediate-step';
import { journaledSeq, LoggedTail } from './logged-tail';

const text = (value: string): ExecutionEventBody => ({ kind: 'output', value });

/** A step as a run publishes it: its ids and times are its own. */
function toolEnd(id: string, at: number): ExecutionEventBody {
  const step = {
    parent_id: `p-${id}`,
    function_ancestry: { function_id: `p-${id}`, function_name: 'root', parent_id: null, parent_name: null },
    payload: {
      event_type: 'TOOL_END',
      event_timestamp: at,
      span_event_timestamp: at - 1,
      framework: null,
      name: 'lookup',
      tags: null,
      metadata: null,
      data: { input: { who: 'Ada' }, output: { ok: true } },
      usage_info: null,
      UUID: id,
    },
  } satisfies IntermediateStep;
  return { kind: 'step', step };
}

/** What a replay publishes of `events`, the log holding `logged` already. */
function published(logged: ExecutionEventBody[], events: ExecutionEventBody[]): ExecutionEventBody[] {
  const tail = new LoggedTail(logged.map((e, i) => ({ ...e, seq: 10 + i })));
  return events.filter((e) => !tail.repeats(e));
}

describe('LoggedTail', () => {
  it('a replay doing again what the log holds publishes only what comes after it', () => {
    const logged = [text('thanks '), toolEnd('a', 100)];
    const replay = [text('thanks '), toolEnd('b', 200), text('hello')];
    expect(published(logged, replay)).toEqual([text('hello')]);
  });

  it('a replay that differs publishes everything from the first difference on', () => {
    const logged = [text('thanks '), text('Ada'), text('!')];
    const replay = [text('thanks '), text('Bob'), text('!'), text('hello')];
    expect(published(logged, replay)).toEqual([text('Bob'), text('!'), text('hello')]);
  });

  it('is exhausted once every logged event was repeated, or one was not', () => {
    const tail = new LoggedTail([text('a')]);
    expect(tail.exhausted).toBe(false);
    expect(tail.repeats(text('a'))).toBe(true);
    expect(tail.exhausted).toBe(true);
    const other = new LoggedTail([text('a'), text('b')]);
    expect(other.repeats(text('x'))).toBe(false);
    expect(other.exhausted).toBe(true);
    expect(other.repeats(text('b'))).toBe(false);
  });

  it("the journal's seq is its latest entry's, 0 without entries, unknown when an entry has none", () => {
    const entry = (point: string, seq?: number) => ({ point, kind: 'now', value: 1, seq });
    expect(journaledSeq([entry('1', 3), entry('2.1', 9), entry('2', 7)])).toBe(9);
    expect(journaledSeq([])).toBe(0);
    expect(journaledSeq([entry('1', 3), entry('2')])).toBeUndefined();
  });
});
