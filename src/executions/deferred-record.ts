import type { ExecutionRecord } from './execution-record';
import type { ExecutionStore } from './execution.store';

/**
 * The record of an execution that nobody can name yet (a plain request answered with its result): it
 * is written to the store only when something needs it there (a prompt or an authorization, its id
 * handed out by the workflow or to a client), so a request that completes at once stores nothing.
 */
export interface DeferredRecord {
  /** The record to write, until it is written. */
  unstored?: ExecutionRecord;
  /** The write under way or done. */
  storing?: Promise<void>;
}

/** Holds `record` back; a client handed the id (`expose`) can poll it, so exposing writes it. */
export function deferRecord(
  entry: DeferredRecord & { execution: { expose(): void } },
  record: ExecutionRecord,
  store: ExecutionStore,
): void {
  entry.unstored = record;
  const expose = entry.execution.expose;
  entry.execution.expose = () => {
    expose();
    void storeDeferred(entry, store);
  };
}

/** Writes the record if it is not written yet; resolves once the store holds it. */
export function storeDeferred(entry: DeferredRecord, store: ExecutionStore): Promise<void> {
  const record = entry.unstored;
  if (record) {
    entry.unstored = undefined;
    entry.storing = store.create(record);
    // A failed write is reported to whatever awaits it next (the wait, the ending), not as unhandled.
    entry.storing.catch(() => undefined);
  }
  return entry.storing ?? Promise.resolve();
}

/** Whether the store holds (or is being given) the record: false for a request that never needed it. */
export function wasStored(entry: DeferredRecord): boolean {
  return entry.unstored === undefined;
}
