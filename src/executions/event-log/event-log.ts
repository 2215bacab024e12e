import type { ExecutionEvent, ExecutionEventBody, TerminalEvent } from '../../runtime/execution-event';

export type EventListener = (event: ExecutionEvent) => void;

/**
 * The ordered events of one execution: appended by the engine, read by faces after a sequence number
 * (a re-attaching client's Last-Event-ID). `event-log.contract.ts` holds the tests every adapter passes.
 */
export abstract class EventLog {
  /** Numbers the event (from 1) and hands it to live subscribers; ignored once the log has ended. */
  abstract append(body: ExecutionEventBody): ExecutionEvent | undefined;
  /** Replays the events after `afterSeq`, then every new one; returns the unsubscribe call. */
  abstract subscribe(listener: EventListener, afterSeq?: number): () => void;
  /** Resolves with the terminal event. */
  abstract get done(): Promise<TerminalEvent>;
  abstract get terminal(): TerminalEvent | undefined;
  /** Frees what is kept (the execution is gone). */
  abstract dispose(): void;
  /** The seq of the last event appended here (a log taken over: of the last one already there); 0 if none. */
  get appendedSeq(): number {
    return 0;
  }
  /**
   * A log opened held (`EventLogs.open(id, { held: true })`) keeps its events to this process until
   * this is called: then what it kept, and every later event, goes where other processes follow it.
   */
  publish(): void {}
}

export interface OpenOptions {
  /**
   * Nobody else can name the execution yet (its record is not stored): its events need not leave
   * this process until `publish()`, and a request answered at once never writes them anywhere.
   */
  held?: boolean;
}

/** Opens an execution's event log; the DI token of the event-log port. */
export abstract class EventLogs {
  /** The log of an execution this process runs: it appends, and is the log's only writer. */
  abstract open(executionId: string, options?: OpenOptions): EventLog;
  /**
   * The log of an execution another process runs, to follow from any seq (its subscribers are called
   * asynchronously; it never appends); undefined when there is none to follow (always, in one process).
   * `live`: the execution still runs, so its log is followed even before its first event is written.
   */
  abstract attach(executionId: string, live: boolean): Promise<EventLog | undefined>;
  /**
   * The log of an execution this process takes over from a replica that is gone: it appends after the
   * events already there, and in any case after `reachedSeq`, the seq the run's journal says it had
   * reached (a log Redis lost holds fewer): the numbers clients were shown up to there are not given
   * to other events. One process never takes over, so by default a new log.
   */
  async resume(executionId: string, _reachedSeq = 0): Promise<EventLog> {
    return this.open(executionId);
  }
  /**
   * The events an execution's log holds after `afterSeq`, as the replica that is gone wrote them: a
   * takeover does not publish them again (one process never takes over, so none).
   */
  async readAfter(_executionId: string, _afterSeq: number): Promise<ExecutionEvent[]> {
    return [];
  }
}
