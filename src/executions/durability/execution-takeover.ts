import type { RunJournal } from '../../runtime/run-journal';
import type { DurableRuns, TakeoverHost } from './durable-runs';
import type { EventLog, EventLogs } from '../event-log/event-log';
import { journalOf } from './journal-writes';
import { promptEntries } from './durable-prompt';
import { isTerminalStatus } from '../model/execution-state';
import type { ExecutionRecord } from '../model/execution-record';
import { specWith, type RunSpec } from '../model/run-spec';
import type { ExecutionStore } from '../store/execution.store';
import { journaledSeq, LoggedTail, reachedSeq } from '../event-log/logged-tail';
import type { ClaimedRun } from './postgres-execution-claims';

/** A claimed execution, ready to run again: its record, what it was started with, its replay. */
export interface ResumedRun {
  record: ExecutionRecord;
  spec: RunSpec;
  /** Its event log, opened where the replica that is gone left it. */
  events: EventLog;
  /** Answers every step that had finished, then journals the next ones. */
  journal: RunJournal;
  /** What the log holds after the last journal point (not published again). */
  logged?: LoggedTail;
}

/** What a takeover needs of the engine (implemented by engine/execution-runner.ts). */
export interface TakeoverEngine {
  /** Whether this process runs the execution already. */
  runs(executionId: string): boolean;
  /** Ends an execution this process cannot run. */
  refuse(run: { id: string; traceId: string }, error: { message: string; type: string }): Promise<void>;
  /** Runs a claimed execution again, from the start. */
  resume(run: ResumedRun): void;
  /**
   * Stops this replica's durable runs (or those of `ids`), recording nothing: another replica goes on
   * with them. Returns the ids of the runs it stopped.
   */
  abandon(ids?: ReadonlySet<string>): string[];
}

export interface TakeoverStores {
  store: ExecutionStore;
  eventLogs: EventLogs;
  durable: DurableRuns;
  /** The configured workflow's type: a run of another one cannot be replayed here. */
  workflowType: string;
}

/**
 * Takes over executions claimed from a replica that is gone: runs each workflow again from the
 * start, the journal answering every step that had finished (nothing published again), up to where
 * it stood, and what it publishes next that the log holds already not published twice; a prompt it
 * waited on is waited on again, with the same id and what is left of its time.
 */
export class ExecutionTakeover implements TakeoverHost {
  constructor(
    private readonly engine: TakeoverEngine,
    private readonly stores: TakeoverStores,
  ) {}

  async resume(run: ClaimedRun): Promise<void> {
    const { store, eventLogs, durable } = this.stores;
    const record = await store.get(run.id);
    if (!record || isTerminalStatus(record.status) || this.engine.runs(run.id)) return;
    const spec = specWith(run.spec, record);
    if (spec.workflow !== this.stores.workflowType) {
      // Another config (a deploy changed the workflow): replaying it would not be the same run.
      const message = `The workflow changed (it was ${spec.workflow}); the execution cannot go on`;
      return this.engine.refuse(record, { message, type: 'WorkflowChanged' });
    }
    // The journal's rows, and the prompts the record holds (durable-prompt.ts).
    const journal = [...(await durable.journal.read(record.id)), ...promptEntries(record)];
    const after = journaledSeq(journal);
    const [events, logged] = await Promise.all([
      eventLogs.resume(record.id, reachedSeq(journal)),
      after === undefined ? [] : eventLogs.readAfter(record.id, after),
    ]);
    // Stopping meanwhile: the claim is released with the rest.
    if (durable.stopped || this.engine.runs(run.id)) return;
    this.engine.resume({
      record,
      spec,
      events,
      journal: journalOf(durable.journal, record.id, journal, events, run.epoch),
      logged: logged.length > 0 ? new LoggedTail(logged) : undefined,
    });
  }

  abandon(): string[] {
    return this.engine.abandon();
  }
}
