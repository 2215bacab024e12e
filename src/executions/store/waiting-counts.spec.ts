import type { ExecutionRecord } from '../model/execution-record';
import { COUNT_FRESH_MS, WaitingCounts } from './waiting-counts';

const record = (status: ExecutionRecord['status']) =>
  ({ status, ownerId: 'alice', clientAddress: '10.0.0.1' }) as ExecutionRecord;

describe('WaitingCounts', () => {
  let now = 0;
  let reads = 0;
  let shared = 0;
  const counts = new WaitingCounts(() => now);
  const read = () => {
    reads++;
    return Promise.resolve(shared);
  };
  beforeEach(() => {
    now += 10 * COUNT_FRESH_MS;
    reads = 0;
    shared = 3;
  });

  it('reads a count far under its limit once a second, and counts its own waits meanwhile', async () => {
    expect(await counts.get('owner:alice', read, 50)).toBe(3);
    counts.changed(record('running'), record('interaction_required'));
    expect(await counts.get('owner:alice', read, 50)).toBe(4);
    counts.changed(record('interaction_required'), record('completed'));
    expect(await counts.get('owner:alice', read, 50)).toBe(3);
    expect(reads).toBe(1);
    now += COUNT_FRESH_MS;
    shared = 7;
    expect(await counts.get('owner:alice', read, 50)).toBe(7);
    expect(reads).toBe(2);
  });

  it('starts that find a count far under its limit a second old share one read; near it, each reads', async () => {
    expect(await counts.get('all', read, 50)).toBe(3);
    now += COUNT_FRESH_MS;
    shared = 5;
    reads = 0;
    const far = await Promise.all([1, 2, 3].map(() => counts.get('all', read, 50)));
    expect(far).toEqual([5, 5, 5]);
    expect(reads).toBe(1);
    // Once it is in, the next second old count is read again.
    now += COUNT_FRESH_MS;
    shared = 6;
    expect(await counts.get('all', read, 50)).toBe(6);
    expect(reads).toBe(2);

    reads = 0;
    const near = await Promise.all([1, 2, 3].map(() => counts.get('all', read, 6)));
    expect(near).toEqual([6, 6, 6]);
    expect(reads).toBe(3);
  });

  it('reads a count near its limit every time, and every count when asked for no cache', async () => {
    expect(await counts.get('address:10.0.0.1', read, 3)).toBe(3);
    shared = 4;
    expect(await counts.get('address:10.0.0.1', read, 3)).toBe(4);
    expect(await counts.get('all', read)).toBe(4);
    expect(await counts.get('all', read)).toBe(4);
    expect(reads).toBe(4);
  });
});
