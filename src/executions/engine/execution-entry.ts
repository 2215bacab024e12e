import type { Identity } from '../../core/identity/identity';
import type { ExecutionSpan } from '../../core/tracing/execution-spans';
import type { BuiltFunction } from '../../runtime/function-type';
import { LazyAbort } from '../../runtime/lazy-abort';
import { runWorkflow, type RunInit } from '../../runtime/workflow-runner';
import type { EventLog } from '../event-log/event-log';
import type { Execution } from '../model/execution';
import type { TerminalEvent } from '../../runtime/execution-event';
import type { WaitingEntry } from './execution-sink';
import { storeDeferred, type DeferredRecord } from './deferred-record';

/**
 * The workflow's run; a sync throw becomes a rejection. Not an async function: a paused run would hold
 * one more suspended frame (a few hundred bytes per waiting execution).
 */
export function launch(workflow: BuiltFunction, input: unknown, init: RunInit): Promise<unknown> {
  try {
    return Promise.resolve(runWorkflow(workflow, input, init));
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

/** The run's signal, made when first read (LazyAbort has the `signal` getter the runner reads). */
export function signalOf(abort: LazyAbort): { readonly signal: AbortSignal } {
  return abort;
}

/** How an execution ended, before its record is kept until `expiresAt`. */
export type Ending =
  { kind: 'completed'; result: unknown } | { kind: 'failed'; error: { message: string; type: string } };

/** What the engine keeps of an execution this process runs. */
export interface Entry extends WaitingEntry, DeferredRecord {
  execution: Execution;
  span: ExecutionSpan;
  /** The caller whose per-user workflow instance this run holds, to release at the end. */
  holder?: Identity;
  /** Whether a client was given the id (then the finished record is kept for a while). */
  exposed: boolean;
  ended: boolean;
  expiresAt?: number;
  /** Taken over from a replica that is gone: its local log holds only the events since. */
  adopted?: boolean;
}

export type CancelEntry = (entry: Entry, reason: string) => Promise<void>;

/** The execution a face holds; methods on the prototype, so a waiting execution holds no closures for them. */
class EntryExecution implements Execution {
  onHandover?: Execution['onHandover'];

  constructor(
    private readonly entry: Entry,
    readonly id: string,
    readonly traceId: string,
    readonly events: EventLog,
    private readonly cancelEntry: CancelEntry,
  ) {}

  get done(): Promise<TerminalEvent> {
    return this.events.done;
  }

  cancel(reason: string): Promise<void> {
    return this.cancelEntry(this.entry, reason);
  }

  expose(): void {
    this.entry.exposed = true;
    // A client handed the id may poll it (deferred-record.ts).
    if (this.entry.unstored) void storeDeferred(this.entry);
  }
}

export function newEntry(
  id: string,
  traceId: string,
  span: ExecutionSpan,
  holder: Identity | undefined,
  events: EventLog,
  cancel: CancelEntry,
): Entry {
  // Every field named here, even those set later: they then live in the object itself, not in a
  // separate property store grown as they are added (measured: ~150 bytes per waiting execution).
  const entry: Entry = {
    execution: undefined as unknown as Execution,
    abort: new LazyAbort(),
    span,
    ended: false,
    waiting: 0,
    streamed: false,
    holder,
    exposed: false,
    expiresAt: undefined,
    adopted: undefined,
    journal: undefined,
    handedOver: undefined,
    logged: undefined,
    unstored: undefined,
    storing: undefined,
    journaled: undefined,
  };
  entry.execution = new EntryExecution(entry, id, traceId, events, cancel);
  return entry;
}
