import type { Identity } from '../core/identity/identity';
import type { ExecutionSpan } from '../core/tracing/execution-spans';
import type { BuiltFunction } from '../runtime/function-type';
import { LazyAbort } from '../runtime/lazy-abort';
import { runWorkflow, type RunInit } from '../runtime/workflow-runner';
import type { EventLog } from './event-log';
import type { Execution } from './execution';
import type { WaitingEntry } from './execution-sink';
import type { DeferredRecord } from './deferred-record';

/** The workflow's run; a sync throw becomes a rejection. */
export async function launch(workflow: BuiltFunction, input: unknown, init: RunInit): Promise<unknown> {
  return runWorkflow(workflow, input, init);
}

export function signalOf(abort: LazyAbort): () => AbortSignal {
  return () => abort.signal;
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

export function newEntry(
  id: string,
  traceId: string,
  span: ExecutionSpan,
  holder: Identity | undefined,
  events: EventLog,
  cancel: (entry: Entry, reason: string) => Promise<void>,
): Entry {
  const entry = {
    abort: new LazyAbort(),
    span,
    ended: false,
    waiting: 0,
    streamed: false,
    holder,
    exposed: false,
  } as Entry;
  entry.execution = {
    id,
    traceId,
    events,
    done: events.done,
    cancel: (reason) => cancel(entry, reason),
    expose: () => (entry.exposed = true),
  };
  return entry;
}
