import type { EventLog } from '../event-log/event-log';
import type { ExecutionRecord } from '../model/execution-record';
import type { ExecutionStore } from '../store/execution.store';
import type { ExecutionTransition, TransitionOutcome } from '../model/execution-state';

/**
 * The record of an execution that nobody can name yet (a plain request answered with its result): it
 * is written to the store only when something needs it there (a prompt or an authorization, its id
 * handed out by the workflow or to a client), so a request that completes at once stores nothing;
 * its event log is held in this process until then too (`EventLogs.open(id, { held: true })`).
 */
export interface DeferredRecord {
  /** The record to write and where, until it is written, and its event log, held until then. */
  unstored?: { record: ExecutionRecord; store: ExecutionStore; events: EventLog };
  /** The write under way or done. */
  storing?: Promise<void>;
}

/** Writes the record if it is not written yet; resolves once the store holds it. */
export function storeDeferred(entry: DeferredRecord): Promise<void> {
  const unstored = entry.unstored;
  if (unstored) {
    entry.unstored = undefined;
    // Events first: whoever finds the record can follow its log from the start.
    unstored.events.publish();
    entry.storing = unstored.store.create(unstored.record);
    // A failed write is reported to whatever awaits it next (the wait, the ending), not as unhandled.
    entry.storing.catch(() => undefined);
  }
  return entry.storing ?? Promise.resolve();
}

/** Whether the store holds (or is being given) the record: false for a request that never needed it. */
export function wasStored(entry: DeferredRecord): boolean {
  return entry.unstored === undefined;
}

/** `store.apply` for the engine's own executions: their deferred record is written first. */
export function applyOnceStored(
  running: { get(id: string): DeferredRecord | undefined },
  store: ExecutionStore,
): (id: string, transition: ExecutionTransition) => Promise<TransitionOutcome> {
  return async (id, transition) => {
    const entry = running.get(id);
    if (entry) await storeDeferred(entry);
    return store.apply(id, transition);
  };
}
