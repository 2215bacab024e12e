import type { ExecutionEvent } from '../runtime/execution-event';
import type { EventLogs } from './event-log';

const kinds = (events: ExecutionEvent[]) => events.map((e) => `${e.seq}:${e.kind}`);

/**
 * What every event-log adapter must do: number events in order, replay after a sequence number, then
 * go live, and end with the terminal event. A spec per adapter calls this with a factory.
 */
export function eventLogContract(name: string, makeLogs: () => Promise<EventLogs> | EventLogs) {
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
  });
}
