import { Logger } from '@nestjs/common';
import type { EventEmitter2 } from '@nestjs/event-emitter';
import { internalErrorMessage, isExposed, WorkflowError } from '../../core/errors/app-error';
import { whileStoreAway } from '../../core/errors/while-store-away';
import {
  ExecutionFinished,
  ExecutionHandedOver,
  type ExecutionOutcome,
} from '../../core/events/execution-events';
import type { ExecutionEventBody } from '../../runtime/execution-event';
import { ExecutionCancelled } from '../model/execution';
import type { Ending, Entry } from './execution-entry';
import { wasStored } from './deferred-record';
import type { ExecutionStore } from '../store/execution.store';
import type { Journal } from '../durability/journal';
import type { RunningExecutions } from './running-executions';

export interface EndingDeps {
  store: ExecutionStore;
  /** Where the end is announced: the span, the counters, OAuth and the per-user instance listen. */
  bus: EventEmitter2;
  ttlSeconds: number;
  /** Durable runs' journal, forgotten once the end is recorded. */
  journal?: Journal;
}

/** How the executions this process runs end: their terminal event, their record, what they held. */
export class ExecutionEndings {
  private readonly logger = new Logger('ExecutionService');
  /** Set once the server stops: an end the store cannot take is not retried past then. */
  stopping = false;

  constructor(
    private readonly running: RunningExecutions,
    private readonly deps: EndingDeps,
  ) {}

  /**
   * Turns the workflow's outcome into its terminal event and record (unless it was cancelled first).
   * Not an async function: a waiting execution holds one reaction on its run, no suspended frame.
   */
  settle(entry: Entry, run: Promise<unknown>): void {
    run.then(
      (result) => this.completed(entry, result),
      (err: unknown) => this.failed(entry, err),
    );
  }

  private completed(entry: Entry, result: unknown): Promise<void> | undefined {
    if (entry.ended) return;
    this.announce(entry, { kind: 'completed' });
    const terminal: ExecutionEventBody = { kind: 'completed', result, streamed: entry.streamed };
    return this.ended(entry, { kind: 'completed', result }, terminal);
  }

  private failed(entry: Entry, err: unknown): Promise<void> | undefined {
    if (entry.ended) return;
    const failure = WorkflowError.from(err);
    const type = failure.extra.errorType ?? 'Error';
    let message = failure.message;
    if (!isExposed(err)) {
      // The record and every face carry the stable message (anonymous callers read them too).
      const { id, traceId } = entry.execution;
      message = internalErrorMessage(traceId);
      this.logger.error(
        `Execution ${id} failed (trace ${traceId}): ${type}: ${failure.message}`,
        err instanceof Error ? err.stack : undefined,
      );
    }
    const error = { message, type };
    this.announce(entry, { kind: 'failed', ...error });
    return this.ended(entry, { kind: 'failed', error }, { kind: 'failed', error });
  }

  private ended(entry: Entry, end: Ending, terminal: ExecutionEventBody): Promise<void> {
    entry.ended = true;
    // Anything the workflow left waiting (a prompt raced by a parallel branch) is closed with it.
    if (entry.waiting > 0) entry.abort.abort(new ExecutionCancelled('execution ended'));
    return this.finish(entry, end, terminal);
  }

  /** Ends an execution this process could not run (a takeover it cannot replay). */
  async refuse(
    run: { id: string; traceId: string },
    error: { message: string; type: string },
  ): Promise<void> {
    const expiresAt = Date.now() + this.deps.ttlSeconds * 1000;
    await this.deps.store.apply(run.id, { kind: 'failed', error, expiresAt });
    const finished = new ExecutionFinished(run.id, run.traceId, { kind: 'failed', ...error });
    this.deps.bus.emit(ExecutionFinished.event, finished);
  }

  /**
   * Announces the end, once per execution (then the entry holds no per-user instance any more). A
   * synchronous emit: the instance is released and the span ended before the client can see the end.
   */
  private announce(entry: Entry, outcome: ExecutionOutcome): void {
    const { id, traceId } = entry.execution;
    const finished = new ExecutionFinished(id, traceId, outcome, entry.span, entry.holder);
    entry.holder = undefined;
    this.deps.bus.emit(ExecutionFinished.event, finished);
  }

  /** A durable run this replica stops without ending it (another one goes on with it). */
  handedOver(entry: Entry): void {
    const event = new ExecutionHandedOver(entry.execution.id, entry.span, entry.holder);
    entry.holder = undefined;
    this.deps.bus.emit(ExecutionHandedOver.event, event);
  }

  async cancel(entry: Entry, reason: string): Promise<void> {
    if (entry.ended) return;
    entry.ended = true;
    entry.abort.abort(new ExecutionCancelled(reason));
    entry.execution.events.append({ kind: 'cancelled', reason });
    this.announce(entry, { kind: 'cancelled', reason });
    await this.finish(entry, {
      kind: 'failed',
      error: { message: 'Execution cancelled', type: 'ExecutionCancelled' },
    });
  }

  /**
   * Records the end; `terminal` (unless already appended) ends the stream only once the record says
   * so, so a client that polls when its stream ends sees the end whichever replica it asks.
   */
  private async finish(entry: Entry, end: Ending, terminal?: ExecutionEventBody): Promise<void> {
    const { id, events } = entry.execution;
    const { store, journal } = this.deps;
    // While the store is away (a restart, a fail-over) the end is written once it is back: a run that
    // ended meanwhile is not left running in its record for good.
    const retried = (what: string, write: () => Promise<unknown>) =>
      whileStoreAway(`${what} of execution ${id}`, write, this.logger, { stopped: () => this.stopping });
    // Appended once: when the end is recorded, or (it could not be) when this gives up.
    let unsent = entry.exposed ? terminal : undefined;
    try {
      if (!entry.exposed) {
        if (terminal) events.append(terminal);
        this.running.remove(id);
        events.dispose();
        // A deferred record never written has nothing to delete (deferred-record.ts).
        if (wasStored(entry)) {
          await entry.storing;
          await retried('The record', () => store.delete(id));
        }
      } else {
        const expiresAt = Date.now() + this.deps.ttlSeconds * 1000;
        entry.expiresAt = expiresAt;
        await entry.storing;
        await retried('The end', () => store.apply(id, { ...end, expiresAt }));
        // The stream ends now, not once the journal is gone (that is only cleanup).
        if (unsent) events.append(unsent);
        unsent = undefined;
      }
      // After the end is recorded: until then a replica taking over still needs it.
      if (journal && entry.journal?.holdsEntries && wasStored(entry))
        await retried('The journal', () => journal.delete(id));
    } catch (err) {
      this.logger.error(`Could not record the end of execution ${id}: ${(err as Error).message}`);
    } finally {
      if (unsent) events.append(unsent);
    }
  }

  /** Evicts expired records and the event logs kept for them. */
  async sweep(now: number): Promise<void> {
    await this.deps.store.evictExpired(now);
    this.running.evictExpired(now);
  }
}
