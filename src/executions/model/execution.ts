import type { ObservabilityTrace } from '../../core/tracing/observability-trace';
import type { BuiltFunction } from '../../runtime/function-type';
import type { TerminalEvent } from '../../runtime/execution-event';
import type { RequestMetadata } from '../../runtime/workflow-context';
import type { EventLog } from '../event-log/event-log';
import type { FaceRef } from './execution-record';

export interface StartOptions {
  request: RequestMetadata;
  /** The observability ids the face read from the request; a fresh trace id when left out. */
  trace?: ObservabilityTrace;
  /** Whether the face can deliver a person's answer; on other routes a prompt fails the workflow. */
  interactive: boolean;
  /** Whether the face streams output as it comes (default true); workflows may skip token streaming if not. */
  streaming?: boolean;
  /** The interactive route to name when a workflow asks on a route that is not (e.g. `/v1/workflow`). */
  interactiveRoute?: string;
  /** The workflow to run; the configured one by default. */
  workflow?: BuiltFunction;
  /**
   * Whether another replica may take the execution over if this one goes (store: postgres; default
   * true). Off for runs something else restarts (async jobs) and for workflows given here.
   */
  durable?: boolean;
  /**
   * The face answers with the result (or the first pause) and names the execution to nobody unless
   * it pauses: its record is stored only once something needs it (a wait, `expose`, the workflow
   * reading its id), so a request that completes at once costs the store nothing. A durable run is
   * also stored once it outlives `general.executions.durable_after_seconds` (0: at start).
   */
  deferRecord?: boolean;
  /** The face that starts it, kept on the record so that a poll or a re-attached stream is rendered by it. */
  face?: FaceRef;
  /** Called once the execution exists and before its workflow runs (a stream sends its headers here). */
  beforeRun?: (execution: Execution) => void;
  /** What the run gives back while it waits for a person, and takes again before it goes on. */
  personWaits?: PersonWaits;
}

/**
 * What a run holds that it gives back while a person answers (an async job's slot): `paused` when it
 * starts to wait for a person (a prompt, an OAuth consent); after the wait the workflow goes on only
 * once `resumed()` resolves.
 */
export interface PersonWaits {
  paused(): void;
  resumed(): Promise<void>;
}

/** A running (or finished) execution as a face sees it: its id, its events, and a way to stop it. */
export interface Execution {
  readonly id: string;
  /** The observability trace id (`Observability-Trace-Id`). */
  readonly traceId: string;
  readonly events: EventLog;
  /** Resolves with the terminal event (completed, failed or cancelled). */
  readonly done: Promise<TerminalEvent>;
  cancel(reason: string): Promise<void>;
  /**
   * Marks the id as handed to a client (a 202 body, an SSE stream): the finished record and its event
   * log then stay readable for `execution_ttl_seconds`. Executions nobody can name are dropped at the end.
   */
  expose(): void;
  /**
   * Durable executions: calls `listener` when this replica stops and hands the execution to another
   * (a stream then ends without a terminal event, so its client re-attaches elsewhere); returns the
   * call that stops listening. Undefined when executions are never handed over (one process).
   */
  onHandover?: (listener: () => void) => () => void;
}

/** Why a workflow was stopped from outside; workflows see it as `ctx.signal.reason`. */
export class ExecutionCancelled extends Error {
  readonly expose = true;

  constructor(readonly reason: string) {
    super(`Execution cancelled: ${reason}`);
    this.name = 'ExecutionCancelled';
  }
}
