import { Logger } from '@nestjs/common';
import { whileStoreAway } from '../../core/errors/while-store-away';
import { HandedOver, RunJournal } from '../../runtime/run-journal';
import type { EventLog } from '../event-log/event-log';
import { Fenced, type Journal, type JournalEntry } from './journal';

const logger = new Logger('Journal');

/**
 * Appends a journal entry, waiting while the store is away (the run pauses there, as it would for a
 * person, rather than fail) until it is back, or until the run is handed over (`journal` closed: a
 * fenced replica's run stops and is taken back, or over, from the journal).
 */
export async function appendWhileAway(
  run: RunJournal,
  executionId: string,
  append: () => Promise<unknown>,
): Promise<unknown> {
  const appended = await whileStoreAway(`A journal entry of execution ${executionId}`, append, logger, {
    stopped: () => run.isClosed,
  });
  if (run.isClosed) throw new HandedOver();
  return appended;
}

/**
 * A durable run's journal: `entries` (a replay) first, then what it writes to `journal`, each with the
 * seq `events` had reached (what a takeover finds in the log after it was published past the point),
 * under the run's `epoch` (its claim; 0 for a run started here). A write refused because another
 * replica claimed the run closes the journal: the run journals, and so calls, nothing more here.
 */
export function journalOf(
  journal: Journal,
  executionId: string,
  entries: JournalEntry[],
  events: EventLog,
  epoch = 0,
): RunJournal {
  const run: RunJournal = new RunJournal(entries, (entry) => {
    const held = { ...entry, seq: events.appendedSeq };
    return appendWhileAway(run, executionId, () => journal.append(executionId, held, epoch)).catch(
      (err: unknown) => {
        if (err instanceof Fenced) run.close();
        throw err;
      },
    );
  });
  return run;
}
