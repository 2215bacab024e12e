import type { ExecutionRecord } from '../model/execution-record';

/** Copies kept at most; past it the oldest goes (a copy is only ever a shortcut). */
const MAX_RECORDS = 10_000;

/**
 * Whether no other replica can change this record: it is running (not waiting for anyone, not ended)
 * and asks nothing (no interaction open, no consent pending). Another replica changes a record only by
 * answering an open interaction (`interaction_closed`, written to PostgreSQL where it is accepted), or
 * once the replica running it is gone (a claim under a new epoch); cancels and consents go to the
 * replica running it, which writes them itself.
 */
export function settled(record: ExecutionRecord): boolean {
  if (record.status !== 'running' || record.oauth) return false;
  for (const id in record.interactions) if (record.interactions[id].status === 'open') return false;
  return true;
}

/**
 * The records this replica wrote last, as committed, while no other replica can change them
 * (`settled`): what a status poll of a run this replica runs is answered from. A copy is dropped when a
 * write of it begins and set again only once that write is committed, so a copy is never older than
 * what PostgreSQL held when it was set nor newer than what it holds: a client that read the committed
 * state elsewhere never reads an older one here, nor one here that PostgreSQL does not have yet.
 */
export class OwnRecords {
  private readonly records = new Map<string, Readonly<ExecutionRecord>>();
  /** The write of each record under way (the last one begun): only its end may set a copy. */
  private readonly writing = new Map<string, number>();
  private writes = 0;

  get(id: string): Readonly<ExecutionRecord> | undefined {
    return this.records.get(id);
  }

  /** A write of `id` begins: no copy until it ends. Returns its token for `end`. */
  begin(id: string): number {
    const token = ++this.writes;
    this.writing.set(id, token);
    this.records.delete(id);
    return token;
  }

  /** The write ended, with the record as committed (undefined: failed, not applied or gone). */
  end(id: string, token: number, committed?: ExecutionRecord): void {
    // A later write began meanwhile: its end decides.
    if (this.writing.get(id) !== token) return;
    this.writing.delete(id);
    if (!committed || !settled(committed)) return;
    if (this.records.size >= MAX_RECORDS) this.records.delete(this.records.keys().next().value!);
    this.records.set(id, committed);
  }

  /** Forgets these records' copies (gone, or another replica may go on with them). */
  forget(ids: Iterable<string>): void {
    for (const id of ids) {
      this.records.delete(id);
      // A write under way ends without a copy too.
      this.writing.delete(id);
    }
  }
}
