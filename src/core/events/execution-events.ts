import type { Identity } from '../identity/identity';
import type { ExecutionSpan, SpanOutcome } from '../tracing/execution-spans';

/**
 * The lifecycle of an execution, as the engine (executions/) emits it on Nest's event bus
 * (`@nestjs/event-emitter`, registered by CoreModule). Here in core, the lowest layer, so that every
 * module that reacts can listen without importing the engine: metrics and monitoring, the span's end
 * (core/tracing), OAuth clean-up (oauth/), the per-user workflow instance (executions/).
 *
 * Listeners are local to the process that runs the execution: the shared store (the records) stays the
 * one truth across replicas. The engine emits synchronously, so every listener has run before the
 * engine goes on (a released per-user instance, an ended span, before the client sees the end).
 */

/** How an execution ended: what its span records and what the counters count. */
export type ExecutionOutcome = SpanOutcome;

/** An execution was started by this process (not one taken over from another replica). */
export class ExecutionStarted {
  static readonly event = 'execution.started';

  constructor(
    readonly executionId: string,
    readonly traceId: string,
    /** The workflow's type. */
    readonly workflow: string,
    readonly identity: Identity,
  ) {}
}

/** What an execution waits on while it is paused for a person. */
export type PersonWait = { kind: 'interaction'; interactionId: string } | { kind: 'oauth' };

/** An execution paused for a person: a prompt was opened, or an OAuth authorization is awaited. */
export class ExecutionPaused {
  static readonly event = 'execution.paused';

  constructor(
    readonly executionId: string,
    readonly wait: PersonWait,
  ) {}
}

/**
 * A wait for a person ended and the execution goes on: the prompt was answered (or timed out), the
 * authorization settled. Emitted where the record changed (the replica a person answered on).
 */
export class ExecutionResumed {
  static readonly event = 'execution.resumed';

  constructor(
    readonly executionId: string,
    readonly wait: PersonWait,
  ) {}
}

/** An execution ended, once: completed, failed or cancelled. */
export class ExecutionFinished {
  static readonly event = 'execution.finished';

  constructor(
    readonly executionId: string,
    readonly traceId: string,
    readonly outcome: ExecutionOutcome,
    /** Its span, to end with the outcome (none for a run this process could not take over). */
    readonly span?: ExecutionSpan,
    /** The caller whose per-user workflow instance the run held, to release. */
    readonly holder?: Identity,
  ) {}
}

/**
 * This replica stopped running an execution without ending it: another replica goes on with it (its
 * span ends here, its per-user instance here is released; its OAuth state is kept for the next one).
 */
export class ExecutionHandedOver {
  static readonly event = 'execution.handed_over';

  constructor(
    readonly executionId: string,
    readonly span: ExecutionSpan,
    readonly holder?: Identity,
  ) {}
}

/**
 * This replica took over an execution from a replica that is gone (or handed it over) and is about to
 * run it again: from now on its events are appended here, after those the other replica left in the
 * log. A face that reacts to an execution's updates beyond a client's request (A2A push
 * notifications) follows it here from then on.
 */
export class ExecutionTakenOver {
  static readonly event = 'execution.taken_over';

  constructor(readonly executionId: string) {}
}
