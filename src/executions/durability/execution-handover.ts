import { RunJournal } from '../../runtime/run-journal';
import type { EventLog } from '../event-log/event-log';
import type { Journal, JournalEntry } from './journal';

/** Listeners (open streams) to call when this replica hands its durable executions over. */
export class Handovers {
  private readonly listeners = new Set<() => void>();

  listen(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fire(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/**
 * A durable run's journal: `entries` (a replay) first, then what it writes to `journal`, each with the
 * seq `events` had reached (what a takeover finds in the log after it was published past the point).
 */
export function journalOf(
  journal: Journal,
  executionId: string,
  entries: JournalEntry[],
  events: EventLog,
): RunJournal {
  return new RunJournal(entries, (entry) =>
    journal.append(executionId, { ...entry, seq: events.appendedSeq }),
  );
}
