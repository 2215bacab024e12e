import type { Identity } from '../../core/identity/identity';
import type { ObservabilityTrace } from '../../core/tracing/observability-trace';
import { startExecutionSpan, type ExecutionSpan } from '../../core/tracing/execution-spans';
import type { RequestMetadata } from '../../runtime/workflow-context';
import { HandedOver, RunJournal } from '../../runtime/run-journal';
import type { EventLog } from '../event-log/event-log';
import type { Journal, JournalEntry } from './journal';
import type { Entry } from '../engine/execution-entry';
import type { ExecutionEndings } from '../engine/execution-endings';
import type { RouteFacts } from '../engine/execution-sink';
import type { PersonWaits } from '../model/execution';

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

/** Stops every durable run of `entries` without recording anything: another replica goes on with it. */
export function abandonDurable(entries: Map<string, Entry>, endings: ExecutionEndings): void {
  for (const [id, entry] of entries) {
    if (!entry.journal || entry.ended) continue;
    entry.handedOver = entry.ended = true;
    entry.journal.close();
    entries.delete(id);
    entry.abort.abort(new HandedOver());
    endings.handedOver(entry);
  }
}

/** What the sink keeps of the route that started a run (from its start options or its run spec). */
export function routeOf(
  route: {
    interactive: boolean;
    interactiveRoute?: string;
    request: { path: string };
    personWaits?: PersonWaits;
  },
  identity: Identity,
  workflow?: string,
): RouteFacts {
  return {
    interactive: route.interactive,
    interactiveRoute: route.interactiveRoute,
    path: route.request.path,
    identity,
    workflow,
    personWaits: route.personWaits,
  };
}

/** What a run is launched with: from a face's start options, or from the run spec of one taken over. */
export interface RunFacts {
  identity: Identity;
  request: RequestMetadata;
  trace: ObservabilityTrace;
  streaming?: boolean;
  interactive: boolean;
  interactiveRoute?: string;
  personWaits?: PersonWaits;
}

/** The span of a run (started, or taken over). */
export function spanOf(
  executionId: string,
  workflow: string,
  identity: Identity,
  trace: ObservabilityTrace,
  request: RequestMetadata,
): ExecutionSpan {
  return startExecutionSpan({
    executionId,
    workflow,
    userId: identity.userId,
    trace,
    headers: request.headers,
  });
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
