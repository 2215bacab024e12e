import { toJson } from '../../db/json-columns';
import type { JournalEntry } from '../../runtime/run-journal';

/**
 * A journal entry's row in `execution_journal` (the seq beside the value: no column of its own, entries
 * journaled before have none). Here, below the journal, because the store writes the entries a run
 * journaled before its record with that record (a run made durable late).
 */
export function journalRow(executionId: string, entry: JournalEntry) {
  return {
    execution_id: executionId,
    point: entry.point,
    kind: entry.kind,
    value: toJson({ v: entry.value, seq: entry.seq }),
    created_at: Date.now(),
  };
}
