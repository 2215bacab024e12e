import type { ExecutionRecord } from '../model/execution-record';
import { COPY_MS, RecordCopies, RENEW_AFTER_MS, WRITE_MS } from './record-copies';

const aRecord = (id: string, status = 'waiting_for_input') => ({ id, status }) as unknown as ExecutionRecord;
/** As the store reads it: the record, and its row's version. */
const versioned = (record: ExecutionRecord, version = 'v1') => ({ record, version });

describe('RecordCopies', () => {
  let now: number;
  let copies: RecordCopies;
  beforeEach(() => {
    now = 1_000;
    copies = new RecordCopies(() => now);
    copies.heard();
    // Nothing is kept for WRITE_MS after notices are first heard (a write begun before may be under way).
    now += WRITE_MS;
  });

  /** A read of `id` that returned `record`, begun and ended now. */
  function read(id: string, record = aRecord(id)) {
    copies.kept(copies.reading(id), versioned(record));
    return record;
  }

  it('serves what a read returned until COPY_MS after the read began', () => {
    const record = read('e1');
    expect(copies.copy('e1')).toBe(record);
    now += COPY_MS - 1;
    expect(copies.copy('e1')).toBe(record);
    now += 1;
    expect(copies.copy('e1')).toBeUndefined();
  });

  it('keeps nothing of a read that failed or found nothing', () => {
    copies.kept(copies.reading('e1'));
    expect(copies.copy('e1')).toBeUndefined();
  });

  it('a write begun drops the copy; nothing read while it is under way is kept; after its end, reads are kept again', () => {
    read('e1');
    copies.begin('e1', 'w1');
    expect(copies.copy('e1')).toBeUndefined();
    read('e1');
    expect(copies.copy('e1')).toBeUndefined();
    copies.end('e1', 'w1');
    const after = read('e1', aRecord('e1', 'running'));
    expect(copies.copy('e1')).toBe(after);
  });

  it('a read begun before a change keeps nothing, even when it ends after the write did', () => {
    const ticket = copies.reading('e1');
    copies.begin('e1', 'w1');
    copies.end('e1', 'w1');
    copies.kept(ticket, versioned(aRecord('e1')));
    expect(copies.copy('e1')).toBeUndefined();
  });

  it('two writers: the record stays uncached until both have ended', () => {
    copies.begin('e1', 'w1');
    copies.begin('e1', 'w2');
    copies.end('e1', 'w1');
    read('e1');
    expect(copies.copy('e1')).toBeUndefined();
    copies.end('e1', 'w2');
    read('e1');
    expect(copies.copy('e1')).toBeDefined();
  });

  it('a write whose end is never heard of stops counting after WRITE_MS', () => {
    copies.begin('e1', 'w1');
    now += WRITE_MS - 1;
    read('e1');
    expect(copies.copy('e1')).toBeUndefined();
    now += 1;
    read('e1');
    expect(copies.copy('e1')).toBeDefined();
  });

  it('records gone (expired) lose their copies; other records keep theirs', () => {
    read('e1');
    read('e2');
    copies.gone(['e1']);
    expect(copies.copy('e1')).toBeUndefined();
    expect(copies.copy('e2')).toBeDefined();
  });

  it('notices lost: every copy goes and nothing is kept until they are heard again and WRITE_MS has passed', () => {
    read('e1');
    const inFlight = copies.reading('e2');
    copies.lost();
    expect(copies.copy('e1')).toBeUndefined();
    copies.kept(inFlight, versioned(aRecord('e2')));
    expect(copies.copy('e2')).toBeUndefined();
    read('e1');
    expect(copies.copy('e1')).toBeUndefined();
    copies.heard();
    read('e1');
    expect(copies.copy('e1')).toBeUndefined();
    now += WRITE_MS;
    read('e1');
    expect(copies.copy('e1')).toBeDefined();
  });

  it('writes whose end was never heard of are forgotten once the records known pass twice the copies kept', () => {
    for (let i = 0; i <= 20_000; i++) copies.begin(`w${i}`, 'dead writer');
    now += WRITE_MS;
    copies.begin('last', 'w');
    read('w0');
    expect(copies.copy('w0')).toBeDefined();
    expect(copies.tracked).toBeLessThan(10);
  });

  it('nothing is kept before notices are first heard', () => {
    const deaf = new RecordCopies(() => now);
    deaf.kept(deaf.reading('e1'), versioned(aRecord('e1')));
    expect(deaf.copy('e1')).toBeUndefined();
  });

  it('keeps at most 10,000 copies: the oldest goes first', () => {
    for (let i = 0; i <= 10_000; i++) read(`e${i}`);
    expect(copies.copy('e0')).toBeUndefined();
    expect(copies.copy('e1')).toBeDefined();
    expect(copies.copy('e10000')).toBeDefined();
  });

  describe('renewal: a read of the version alone', () => {
    it('a copy served since its read comes due at RENEW_AFTER_MS; the same version serves it COPY_MS from the renewal', () => {
      const record = read('e1');
      now += RENEW_AFTER_MS;
      expect(copies.due()).toEqual([]);
      expect(copies.copy('e1')).toBe(record);
      copies.served('e1');
      const [renewal, ...more] = copies.due();
      expect(more).toEqual([]);
      expect(renewal).toMatchObject({ record, version: 'v1', ticket: { id: 'e1' } });
      now += 10;
      copies.renewed(renewal, 'v1');
      now += COPY_MS - 11;
      expect(copies.copy('e1')).toBe(record);
      now += 1;
      expect(copies.copy('e1')).toBeUndefined();
    });

    it('another version, or none (the record is gone, or the read failed), drops the copy', () => {
      for (const found of ['v2', undefined]) {
        read('e1');
        copies.served('e1');
        now += RENEW_AFTER_MS;
        const [renewal] = copies.due();
        copies.renewed(renewal, found);
        expect(copies.copy('e1')).toBeUndefined();
        expect(copies.tracked).toBe(0);
      }
    });

    it('a change heard of while the version is read keeps nothing, whatever the version read', () => {
      read('e1');
      copies.served('e1');
      now += RENEW_AFTER_MS;
      const [renewal] = copies.due();
      copies.begin('e1', 'w1');
      copies.end('e1', 'w1');
      copies.renewed(renewal, 'v1');
      expect(copies.copy('e1')).toBeUndefined();
    });

    it('a copy nobody was served since its read is left to expire', () => {
      read('e1');
      now += COPY_MS - 1;
      expect(copies.due()).toEqual([]);
    });
  });
});
