import {
  isTerminal,
  type ExecutionEvent,
  type ExecutionEventBody,
  type TerminalEvent,
} from '../../runtime/execution-event';
import type { EventLogBudget, SheddableLog } from './event-log-budget';
import { EventLog, EventLogs, type EventListener } from './event-log';

export interface EventLogLimits {
  /** Bytes kept for replay per execution; older events are dropped past it. */
  maxBytes: number;
  /** The process-wide bound shared by every log. */
  budget?: EventLogBudget;
}

/** Consecutive text chunks kept as one: their text, and each chunk's length to resume inside it. */
interface MergedOutput {
  kind: 'output';
  value: string;
  seq: number;
  /** The seq of the first chunk merged in. */
  from: number;
  lengths: number[];
}

type Kept = ExecutionEvent | MergedOutput;

/** A merged run of text chunks: their text, the seqs of the first and the last, each one's length. */
export type MergedRun = Pick<MergedOutput, 'value' | 'seq' | 'from' | 'lengths'>;

/** What an event costs to keep, roughly (object overhead plus its content). */
function sizeOf(event: ExecutionEventBody): number {
  if (event.kind === 'output' && typeof event.value === 'string') return 64 + event.value.length * 2;
  try {
    return 64 + JSON.stringify(event).length * 2;
  } catch {
    return 1024;
  }
}

const CHUNK_COST = 8;
/** Text chunks are merged into runs of at most this many characters (the unit dropped past a bound)… */
const SEGMENT_CHARS = 32 * 1024;
/** …and at most this share of a log's bound, so dropping one never empties the log. */
const SEGMENT_SHARE = 1 / 64;
/** Short logs replay event for event; past this many kept events, text chunks are merged. */
const MERGE_PAST = 128;

/** The most characters a merged run of a log bounded to `maxBytes` holds. */
export function segmentCharsOf(maxBytes: number): number {
  return Math.max(64, Math.min(SEGMENT_CHARS, Math.floor((maxBytes * SEGMENT_SHARE) / 2)));
}

function isText(event: Kept): event is Kept & { kind: 'output'; value: string } {
  return event.kind === 'output' && typeof event.value === 'string';
}

function isMerged(kept: Kept): kept is MergedOutput {
  return 'lengths' in kept;
}

/**
 * The ordered event stream of one live execution. Subscribers get what they missed (events after
 * `afterSeq`) and then every new event. What is kept for replay is bounded: in long logs consecutive
 * text chunks are merged (replayed as one event), and past the bound the oldest events are dropped; a subscriber resuming before them
 * first gets one `events_dropped` event saying how many it cannot have.
 */
export class ExecutionEventLog extends EventLog implements SheddableLog {
  private kept: Kept[] = [];
  private head = 0;
  private bytes = 0;
  /** The seq of the last event no longer kept (0: none dropped). */
  private droppedThrough = 0;
  /** Questions older than the kept events: never dropped, a re-attacher must still be able to answer. */
  private pinned?: ExecutionEvent[];
  /** Made on the first live subscriber and dropped with the last (a waiting execution often has none). */
  private listeners?: Set<EventListener>;
  private readonly segmentChars: number;
  private seq = 0;
  private final: TerminalEvent | undefined;
  /** Made when first asked for (a request that only subscribes never needs it). */
  private settled?: Promise<TerminalEvent>;
  private resolveSettled?: (event: TerminalEvent) => void;

  constructor(private readonly limits: EventLogLimits = { maxBytes: Number.POSITIVE_INFINITY }) {
    super();
    this.segmentChars = segmentCharsOf(limits.maxBytes);
  }

  /** Resolves with the terminal event. */
  get done(): Promise<TerminalEvent> {
    if (!this.settled) {
      const final = this.final;
      this.settled = final
        ? Promise.resolve(final)
        : new Promise((resolve) => (this.resolveSettled = resolve));
    }
    return this.settled;
  }

  get terminal(): TerminalEvent | undefined {
    return this.final;
  }

  /** Bytes kept for replay (an estimate). */
  get keptBytes(): number {
    return this.bytes;
  }

  override get appendedSeq(): number {
    return this.seq;
  }

  /** Numbers the next event after `seq` (a log taken over from another replica); only before the first. */
  continueAfter(seq: number): void {
    if (this.seq === 0) this.seq = this.droppedThrough = seq;
  }

  append(body: ExecutionEventBody): ExecutionEvent | undefined {
    if (this.final) return undefined;
    // Publishers hand over fresh objects, so the sequence number is stamped on in place.
    const event = body as ExecutionEvent;
    event.seq = ++this.seq;
    if (isTerminal(event)) this.final = event;
    this.keep(event);
    const listeners = this.listeners;
    if (listeners) for (const listener of listeners) listener(event);
    if (this.final) {
      this.listeners = undefined;
      this.resolveSettled?.(this.final);
      this.resolveSettled = undefined;
    }
    return event;
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    if (afterSeq < this.droppedThrough) {
      const pinned = this.pinned?.filter((e) => e.seq > afterSeq) ?? [];
      const count = this.droppedThrough - afterSeq - pinned.length;
      if (count > 0) listener({ kind: 'events_dropped', count, seq: this.droppedThrough });
      for (const event of pinned) listener(event);
    }
    for (let i = this.head; i < this.kept.length; i++) {
      const kept = this.kept[i];
      if (kept.seq <= afterSeq) continue;
      listener(isMerged(kept) ? this.replayed(kept, afterSeq) : kept);
    }
    if (this.final) {
      // Disposed (its execution ended with nobody holding its id): the end is all that is left, and the
      // face that started it may subscribe only after that (a workflow that completes at once).
      if (this.kept.length === 0 && this.final.seq > afterSeq) listener(this.final);
      return () => undefined;
    }
    (this.listeners ??= new Set()).add(listener);
    return () => {
      const listeners = this.listeners;
      if (listeners?.delete(listener) && listeners.size === 0) this.listeners = undefined;
    };
  }

  /**
   * What it keeps, oldest first (questions older than the rest first), a merged run as one event
   * with the chunks it holds: a held log is published from this.
   */
  replayKept(listener: (event: ExecutionEvent, merged?: MergedRun) => void): void {
    for (const event of this.pinned ?? []) listener(event);
    for (let i = this.head; i < this.kept.length; i++) {
      const kept = this.kept[i];
      if (isMerged(kept)) listener({ kind: 'output', value: kept.value, seq: kept.seq }, kept);
      else listener(kept);
    }
    if (this.final && this.kept.length === 0) listener(this.final);
  }

  shed(bytes: number): number {
    const before = this.bytes;
    this.dropUntil(Math.max(0, this.bytes - bytes));
    return before - this.bytes;
  }

  /** Frees everything kept (the execution is gone). */
  dispose(): void {
    this.limits.budget?.release(this);
    this.kept = [];
    this.head = 0;
    this.bytes = 0;
  }

  private keep(event: ExecutionEvent): void {
    if (event === this.final) {
      // The end is kept as long as the run's record (never given up: a late subscriber ends on it) and
      // outside the bounds, which are for what replays before it: counted, the ends of finished runs
      // held the whole budget and every live run gave up its events as they came.
      this.push(event);
      return;
    }
    const last = this.kept.length > this.head ? this.kept[this.kept.length - 1] : undefined;
    let cost: number;
    const many = this.kept.length - this.head >= MERGE_PAST;
    if (many && isText(event) && last && isText(last) && last.value.length < this.segmentChars) {
      if (isMerged(last)) {
        // Our own object, never handed to a listener: grown in place.
        last.value += event.value;
        last.seq = event.seq;
        last.lengths.push(event.value.length);
      } else {
        this.kept[this.kept.length - 1] = {
          kind: 'output',
          value: last.value + event.value,
          seq: event.seq,
          from: last.seq,
          lengths: [last.value.length, event.value.length],
        };
      }
      cost = event.value.length * 2 + CHUNK_COST;
    } else {
      this.push(event);
      cost = sizeOf(event);
    }
    this.bytes += cost;
    this.limits.budget?.charge(this, cost);
    if (this.bytes > this.limits.maxBytes) this.dropUntil(this.limits.maxBytes);
  }

  /**
   * The first event in an array of one: a push would reserve 17 slots, and a waiting execution often
   * keeps a single event (its question).
   */
  private push(event: ExecutionEvent): void {
    if (this.kept.length === 0) this.kept = [event];
    else this.kept.push(event);
  }

  /** The part of a merged run of chunks after `afterSeq`. */
  private replayed(merged: MergedOutput, afterSeq: number): ExecutionEvent {
    if (afterSeq < merged.from) return { kind: 'output', value: merged.value, seq: merged.seq };
    let skip = 0;
    for (let i = 0; i <= afterSeq - merged.from; i++) skip += merged.lengths[i];
    return { kind: 'output', value: merged.value.slice(skip), seq: merged.seq };
  }

  /** Drops the oldest events (never the terminal one) until at most `target` bytes are kept. */
  private dropUntil(target: number): void {
    const before = this.bytes;
    while (this.bytes > target && this.head < this.kept.length) {
      const oldest = this.kept[this.head];
      if (oldest === this.final) break;
      if (oldest.kind === 'interaction_required' || oldest.kind === 'oauth_required') {
        (this.pinned ??= []).push(oldest as ExecutionEvent);
      } else {
        this.bytes -= isMerged(oldest)
          ? 64 + oldest.value.length * 2 + CHUNK_COST * (oldest.lengths.length - 1)
          : sizeOf(oldest);
      }
      this.droppedThrough = oldest.seq;
      this.kept[this.head++] = undefined as unknown as Kept;
    }
    if (this.head > 1024 && this.head * 2 > this.kept.length) {
      this.kept = this.kept.slice(this.head);
      this.head = 0;
    }
    this.bytes = Math.max(0, this.bytes);
    if (before > this.bytes) this.limits.budget?.credit(this, before - this.bytes);
  }
}

/** The memory adapter of the event-log port: one process, bounded per execution and together. */
export class MemoryEventLogs extends EventLogs {
  constructor(private readonly limits: EventLogLimits) {
    super();
  }

  open(): EventLog {
    return new ExecutionEventLog(this.limits);
  }

  /** One process: every log there is was opened by this process's ExecutionService. */
  async attach(_executionId: string, _live: boolean): Promise<EventLog | undefined> {
    return undefined;
  }
}
