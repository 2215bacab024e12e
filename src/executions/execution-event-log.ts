import {
  isTerminal,
  type ExecutionEvent,
  type ExecutionEventBody,
  type TerminalEvent,
} from '../core/events/execution-event';

export type EventListener = (event: ExecutionEvent) => void;

/**
 * The ordered event stream of one live execution. Subscribers get what they missed (events after
 * `afterSeq`) and then every new event. The log lives as long as a face holds the execution.
 */
export class ExecutionEventLog {
  private readonly events: ExecutionEvent[] = [];
  private readonly listeners = new Set<EventListener>();
  private seq = 0;
  private final: TerminalEvent | undefined;
  private readonly settled: Promise<TerminalEvent>;
  private resolveSettled!: (event: TerminalEvent) => void;

  constructor() {
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
  }

  /** Resolves with the terminal event. */
  get done(): Promise<TerminalEvent> {
    return this.settled;
  }

  get terminal(): TerminalEvent | undefined {
    return this.final;
  }

  append(body: ExecutionEventBody): ExecutionEvent | undefined {
    if (this.final) return undefined;
    // Publishers hand over fresh objects, so the sequence number is stamped on in place.
    const event = body as ExecutionEvent;
    event.seq = ++this.seq;
    this.events.push(event);
    if (isTerminal(event)) this.final = event;
    for (const listener of this.listeners) listener(event);
    if (this.final) {
      this.listeners.clear();
      this.resolveSettled(this.final);
    }
    return event;
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    for (const event of this.events) if (event.seq > afterSeq) listener(event);
    if (this.final) return () => undefined;
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
