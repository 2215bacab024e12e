import type { Identity } from '../../core/identity/identity';
import type { ExecutionSpan } from '../../core/tracing/execution-spans';
import type { BuiltFunction } from '../../runtime/function-type';
import type { DurableRuns } from './durable-runs';
import type { EventLog, EventLogs } from '../event-log/event-log';
import type { Entry } from '../engine/execution-entry';
import type { ExecutionEndings } from '../engine/execution-endings';
import { journalOf, spanOf, type RunFacts } from './execution-handover';
import { isTerminalStatus } from '../model/execution-state';
import type { ExecutionStore } from '../store/execution.store';
import { journaledSeq, LoggedTail } from '../event-log/logged-tail';
import type { ClaimedRun } from './postgres-execution-claims';
import type { WorkflowInstances } from '../engine/workflow-instances';

/** What a takeover needs of the ExecutionService: its stores, and how it registers and runs an entry. */
export interface TakeoverDeps {
  store: ExecutionStore;
  eventLogs: EventLogs;
  durable: DurableRuns;
  instances: WorkflowInstances;
  endings: ExecutionEndings;
  /** The configured workflow's type: a run of another one cannot be replayed here. */
  workflowType: string;
  entries: Map<string, Entry>;
  entryFor(id: string, traceId: string, span: ExecutionSpan, holder: Identity, events: EventLog): Entry;
  run(entry: Entry, workflow: BuiltFunction, input: unknown, facts: RunFacts): void;
}

/**
 * Takes over an execution claimed from a replica that is gone: runs its workflow again from the
 * start, the journal answering every step that had finished (nothing published again), up to where
 * it stood, and what it publishes next that the log holds already not published twice; a prompt it waited on is waited on again, with the same id and what is left of its time.
 */
export async function takeOver(run: ClaimedRun, deps: TakeoverDeps): Promise<void> {
  const { store, durable, entries } = deps;
  const record = await store.get(run.id);
  if (!record || isTerminalStatus(record.status) || entries.has(run.id)) return;
  const { spec } = run;
  if (spec.workflow !== deps.workflowType) {
    // Another config (a deploy changed the workflow): replaying it would not be the same run.
    const message = `The workflow changed (it was ${spec.workflow}); the execution cannot go on`;
    return deps.endings.refuse(record, { message, type: 'WorkflowChanged' });
  }
  const journal = await durable.journal.read(record.id);
  const after = journaledSeq(journal);
  const [events, logged] = await Promise.all([
    deps.eventLogs.resume(record.id),
    after === undefined ? [] : deps.eventLogs.readAfter(record.id, after),
  ]);
  // Stopping meanwhile: the claim is released with the rest.
  if (durable.stopped || entries.has(run.id)) return;
  const workflow = deps.instances.acquire(spec.identity);
  const span = spanOf(record.id, workflow.type, spec.identity, spec.trace, spec.request);
  const entry = deps.entryFor(record.id, record.traceId, span, spec.identity, events);
  entry.journal = journalOf(durable.journal, record.id, journal, events);
  if (logged.length > 0) entry.logged = new LoggedTail(logged);
  entry.exposed = entry.adopted = true;
  entries.set(record.id, entry);
  deps.run(entry, workflow, spec.input, spec);
}
