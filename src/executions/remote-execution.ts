import type { Execution } from './execution';
import type { EventLogs } from './event-log';
import type { ExecutionRecord } from './execution-record';
import { isTerminalStatus } from './execution-state';

/**
 * An execution another replica runs, as a face on this one sees it: its events followed from the
 * shared event log. Undefined when that log is not there (one process, or expired).
 */
export async function remoteExecution(
  eventLogs: EventLogs,
  record: ExecutionRecord,
  cancel: (reason: string) => Promise<void>,
): Promise<Execution | undefined> {
  const events = await eventLogs.attach(record.id, !isTerminalStatus(record.status));
  if (!events) return undefined;
  return {
    id: record.id,
    traceId: record.traceId,
    events,
    get done() {
      return events.done;
    },
    cancel,
    // Only the replica that started it can hand its id out first; here it has been handed out already.
    expose: () => undefined,
  };
}
