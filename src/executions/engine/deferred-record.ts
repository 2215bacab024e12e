import { RunJournal, type JournalEntry } from '../../runtime/run-journal';
import { appendWhileAway } from '../durability/journal-writes';
import type { Journal } from '../durability/journal';
import type { EventLog } from '../event-log/event-log';
import type { ExecutionRecord } from '../model/execution-record';
import type { DurableRun, ExecutionStore } from '../store/execution.store';
import { applyTransition, type ExecutionTransition, type TransitionOutcome } from '../model/execution-state';

/**
 * The record of an execution that nobody can name yet (a plain request answered with its result): it
 * is written to the store only when something needs it there (a prompt or an authorization, its id
 * handed out by the workflow or to a client, a durable run that outlived `durable_after_seconds`), so
 * a request that completes at once stores nothing; its event log is held in this process until then
 * too (`EventLogs.open(id, { held: true })`), and so is a durable run's journal: everything it did
 * before is written with the record, in one statement, and its events in one Redis pipeline.
 */
export interface DeferredRecord {
  /**
   * The record to write and where, until it is written, and its event log, held until then; for a
   * durable run, what another replica needs to take it over (its owner and run spec).
   */
  unstored?: { record: ExecutionRecord; store: ExecutionStore; events: EventLog; durable?: DurableRun };
  /** The write under way (or failed); undefined again once the store holds the record. */
  storing?: Promise<void>;
  /** A durable run's journal entries while its record is not written (written with it). */
  journaled?: JournalEntry[];
}

/** Writes the record if it is not written yet; resolves once the store holds it. */
export function storeDeferred(entry: DeferredRecord): Promise<void> {
  const unstored = entry.unstored;
  if (unstored) {
    entry.unstored = undefined;
    // Events first: whoever finds the record can follow its log from the start.
    unstored.events.publish();
    const durable = unstored.durable && { ...unstored.durable, journal: entry.journaled };
    entry.journaled = undefined;
    const storing = unstored.store.create(unstored.record, durable);
    entry.storing = storing;
    // A failed write stays, reported to whatever awaits it next (the wait, the ending), not as unhandled.
    storing.then(
      () => {
        if (entry.storing === storing) entry.storing = undefined;
      },
      () => undefined,
    );
  }
  return entry.storing ?? Promise.resolve();
}

/** Whether the store holds (or is being given) the record: false for a request that never needed it. */
export function wasStored(entry: DeferredRecord): boolean {
  return entry.unstored === undefined;
}

/**
 * A durable run's journal that is kept with the run until its record is written: no other replica can
 * know the execution before that, so each entry is the only value its point will have. Once the record
 * is written (with the entries kept so far), entries go to `journal`, after that write.
 */
export function deferredJournal(
  entry: DeferredRecord,
  journal: Journal,
  executionId: string,
  events: EventLog,
): RunJournal {
  const run: RunJournal = new RunJournal([], (point) => {
    const held = { ...point, seq: events.appendedSeq };
    if (entry.unstored) {
      (entry.journaled ??= []).push(held);
      return Promise.resolve(point.value);
    }
    const append = () => journal.append(executionId, held);
    return (entry.storing ?? Promise.resolve()).then(() => appendWhileAway(run, executionId, append));
  });
  return run;
}

/**
 * `store.apply` for the engine's own executions: their deferred record is written first. A record not
 * written yet (the run's first prompt, typically) is written once, already changed: one row, not a row
 * and its update (which leaves a dead copy of the row behind until PostgreSQL vacuums it).
 */
export function applyOnceStored(
  running: { get(id: string): DeferredRecord | undefined },
  store: ExecutionStore,
): (id: string, transition: ExecutionTransition) => Promise<TransitionOutcome> {
  return async (id, transition) => {
    const entry = running.get(id);
    const unstored = entry?.unstored;
    if (unstored) {
      const { outcome, record } = applyTransition(unstored.record, transition, Date.now());
      if (outcome === 'applied') {
        unstored.record = record;
        await storeDeferred(entry);
        return outcome;
      }
    }
    if (entry) await storeDeferred(entry);
    return store.apply(id, transition);
  };
}
