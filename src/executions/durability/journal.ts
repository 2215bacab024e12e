import { HandedOver, type JournalEntry } from '../../runtime/run-journal';

export type { JournalEntry };

/**
 * A journal write refused because the run's epoch is no longer the record's: another replica claimed
 * the execution (this one was presumed dead). The run stops here, recording nothing more.
 */
export class Fenced extends HandedOver {
  constructor(readonly executionId: string) {
    super();
    this.message = `Execution ${executionId} was claimed by another replica; this one stops running it`;
  }
}

/**
 * Each durable execution's journal: the results its workflow depended on, by point, so a replica that
 * takes the execution over replays the workflow without calling a model, a tool or a person again.
 * Abstract class so it is also the DI token; `journal.contract.ts` holds the tests every adapter passes.
 * Only `general.executions.store: postgres` journals (one process has nobody to hand a run to).
 */
export abstract class Journal {
  /**
   * Journals one result. A point holds one value for good: when it already has one (a replica that was
   * presumed dead wrote it first), that value is kept and returned, so every run goes on with the same.
   * With `epoch` (the run's claim), the write is made only while the record holds that epoch, and
   * fails with `Fenced` otherwise.
   */
  abstract append(executionId: string, entry: JournalEntry, epoch?: number): Promise<unknown>;
  /** An execution's entries, in the order they were journaled. */
  abstract read(executionId: string): Promise<JournalEntry[]>;
  /** Forgets an execution's journal (it ended). */
  abstract delete(executionId: string): Promise<void>;
}

/** JSON in and out, as a shared store would keep it: a value that is not JSON fails here too. */
function stored(value: unknown): unknown {
  const text = JSON.stringify({ v: value });
  return (JSON.parse(text) as { v: unknown }).v;
}

/** In one process (the contract suite and unit tests; the engine does not journal in memory mode). */
export class MemoryJournal extends Journal {
  private readonly journals = new Map<string, Map<string, JournalEntry>>();

  async append(executionId: string, entry: JournalEntry): Promise<unknown> {
    let journal = this.journals.get(executionId);
    if (!journal) this.journals.set(executionId, (journal = new Map()));
    const held = journal.get(entry.point);
    if (held) return held.value;
    journal.set(entry.point, { ...entry, value: stored(entry.value) });
    return entry.value;
  }

  async read(executionId: string): Promise<JournalEntry[]> {
    return [...(this.journals.get(executionId)?.values() ?? [])].map((e) => ({
      ...e,
      value: stored(e.value),
    }));
  }

  async delete(executionId: string): Promise<void> {
    this.journals.delete(executionId);
  }
}
