import { CopyRenewal } from './copy-renewal';
import { COPY_MS, RecordCopies, RENEW_AFTER_MS, WRITE_MS } from './record-copies';
import type { ExecutionRecord } from '../model/execution-record';

const aRecord = (id: string) => ({ id, status: 'interaction_required' }) as unknown as ExecutionRecord;

describe('CopyRenewal', () => {
  let now: number;
  let copies: RecordCopies;
  /** The rows' versions as the store holds them, and the queries that read them. */
  let versions: Map<string, string>;
  let queries: string[][];
  /** The records whose audience this replica is surely in. */
  let told: Set<string>;
  let renewal: CopyRenewal;
  beforeEach(() => {
    now = 1_000;
    copies = new RecordCopies(() => now);
    copies.heard();
    now += WRITE_MS;
    versions = new Map();
    queries = [];
    told = new Set();
    renewal = new CopyRenewal(
      copies,
      async (ids) => {
        queries.push(ids);
        return new Map(ids.filter((id) => versions.has(id)).map((id) => [id, versions.get(id)!]));
      },
      (id) => told.has(id),
    );
  });

  /** `id` read at version v1, then served to a poll. */
  function polled(id: string) {
    versions.set(id, 'v1');
    told.add(id);
    copies.kept(copies.reading(id), { record: aRecord(id), version: 'v1' });
    copies.served(id);
  }

  it('renews the copies polled since their read whose rows are unchanged, in one query; the others go', async () => {
    for (const id of ['same', 'written', 'gone']) polled(id);
    copies.kept(copies.reading('unpolled'), { record: aRecord('unpolled'), version: 'v1' });
    versions.set('written', 'v2');
    versions.delete('gone');
    now += RENEW_AFTER_MS;
    await renewal.renew();
    expect(queries).toEqual([['same', 'written', 'gone']]);
    now += COPY_MS - 1;
    expect(copies.copy('same')).toEqual(aRecord('same'));
    expect(copies.copy('written')).toBeUndefined();
    expect(copies.copy('gone')).toBeUndefined();
    expect(copies.copy('unpolled')).toBeUndefined();
  });

  it('a copy of a record whose writes this replica may no longer be told of goes unasked: the next poll reads it and joins again', async () => {
    polled('still-told');
    polled('lapsed');
    told.delete('lapsed');
    now += RENEW_AFTER_MS;
    await renewal.renew();
    expect(queries).toEqual([['still-told']]);
    expect(copies.copy('still-told')).toEqual(aRecord('still-told'));
    expect(copies.copy('lapsed')).toBeUndefined();
  });

  it('asks for at most 1,000 records per query', async () => {
    for (let i = 0; i < 2_500; i++) polled(`e${i}`);
    now += RENEW_AFTER_MS;
    await renewal.renew();
    expect(queries.map((ids) => ids.length)).toEqual([1_000, 1_000, 500]);
  });

  it('a failed query renews nothing: polls read the records again', async () => {
    polled('e1');
    const failing = new CopyRenewal(
      copies,
      () => Promise.reject(new Error('connection terminated')),
      () => true,
    );
    now += RENEW_AFTER_MS;
    await failing.renew();
    expect(copies.copy('e1')).toBeUndefined();
  });

  it('one renewal at a time: a call while one is under way gets that one', async () => {
    polled('e1');
    now += RENEW_AFTER_MS;
    const first = renewal.renew();
    expect(renewal.renew()).toBe(first);
    await first;
    expect(queries).toHaveLength(1);
  });

  it('runs every COPY_MS / 4 once started, until stopped', async () => {
    jest.useFakeTimers();
    try {
      const timed = new CopyRenewal(
        copies,
        async (ids) => (queries.push(ids), new Map()),
        () => true,
      );
      polled('e1');
      now += RENEW_AFTER_MS;
      timed.start();
      await jest.advanceTimersByTimeAsync(COPY_MS / 4);
      expect(queries).toEqual([['e1']]);
      polled('e2');
      now += RENEW_AFTER_MS;
      await timed.stop();
      await jest.advanceTimersByTimeAsync(COPY_MS);
      expect(queries).toEqual([['e1']]);
    } finally {
      jest.useRealTimers();
    }
  });
});
