import type { ExecutionRecord } from '../model/execution-record';

/**
 * How long a copy is served at most. It bounds what a write no replica was told of can leave behind:
 * its writer, when it could not announce it, answers its client only this long after the commit.
 */
export const COPY_MS = 2000;
/**
 * How long an announced write counts as under way on the other replicas: its end is announced only
 * when it took longer than half of this (then before its writer answers).
 */
export const WRITE_MS = 2000;
/** Copies kept at most; past it the oldest goes (a copy is only ever a shortcut). */
const MAX_COPIES = 10_000;

interface Copy {
  record: Readonly<ExecutionRecord>;
  /** When the read that made it began (it is at least as new as PostgreSQL was then). */
  readAt: number;
}

/** What this replica knows of one record: its copy, the writes of it under way, the reads in flight. */
interface Known {
  copy?: Copy;
  /** The clock at its last change (a write begun or ended): a read begun before it keeps nothing. */
  changedAt: number;
  /** The writes under way, by writer, with when each stops counting. */
  writes: Map<string, number>;
  reads: number;
}

/** A read of PostgreSQL begun now: what `keep` checks to tell whether its result may be kept. */
export interface Ticket {
  id: string;
  clock: number;
  epoch: number;
  readAt: number;
  /** False when nothing read now may be kept (a write under way, or notices that may have been missed). */
  keepable: boolean;
}

/**
 * Copies of execution records read from PostgreSQL, each kept until a change of it is announced
 * (record-changes.ts). A write is announced before it commits; until it ends (a notice of its end, or
 * WRITE_MS after its start was heard of, by when it has committed) nothing of that record is kept, and
 * a read begun before a change keeps nothing, so a copy is never older than what PostgreSQL held since
 * the last change this replica heard of. Whether every change was heard of is the transport's part: it
 * calls `lost` when notices may have been missed (no copy is served from then on) and `heard` once
 * they arrive again.
 */
export class RecordCopies {
  private readonly known = new Map<string, Known>();
  private clock = 0;
  private epoch = 0;
  private copies = 0;
  /** Until when nothing is kept: notices are not heard (yet, or since they may have been missed). */
  private deafUntil = Infinity;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** How many records this replica knows something of (a copy, a write under way, a read): bounded. */
  get tracked(): number {
    return this.known.size;
  }

  /** The copy of `id` to serve, if there is one still good. */
  copy(id: string): Readonly<ExecutionRecord> | undefined {
    const copy = this.known.get(id)?.copy;
    if (!copy) return undefined;
    // `lost` drops every copy: one still here was kept since notices were last heard.
    if (this.now() - copy.readAt < COPY_MS) return copy.record;
    this.drop(id);
    return undefined;
  }

  /** A read of `id` begins; `kept` must follow it (with nothing when it failed). */
  reading(id: string): Ticket {
    const now = this.now();
    const known = this.entry(id);
    known.reads++;
    const keepable = now >= this.deafUntil && !this.writing(known, now);
    return { id, clock: this.clock, epoch: this.epoch, readAt: now, keepable };
  }

  /** The read of the ticket ended: its record is kept when nothing changed since it began. */
  kept(ticket: Ticket, record?: ExecutionRecord): void {
    const known = this.known.get(ticket.id);
    if (!known) return;
    known.reads--;
    const unchanged = known.changedAt <= ticket.clock && ticket.epoch === this.epoch;
    if (record && ticket.keepable && unchanged) {
      if (!known.copy && ++this.copies > MAX_COPIES) this.dropOldest();
      known.copy = { record, readAt: ticket.readAt };
    }
    this.tidy(ticket.id, known);
  }

  /**
   * A write of `id` begins (here or on another replica): its copy goes, none is kept until it ends, or
   * until `ms` have passed (by then it has committed).
   */
  begin(id: string, writer: string, ms = WRITE_MS): void {
    // Writes whose end was never heard of (their writer died) leave records behind: forget those now and then.
    if (this.known.size > 2 * MAX_COPIES) this.forgetIdle();
    const known = this.changed(id);
    known.writes.set(writer, this.now() + ms);
  }

  /** The write ended (committed or not): reads begun from now on may keep what they read. */
  end(id: string, writer: string): void {
    const known = this.changed(id);
    known.writes.delete(writer);
    this.tidy(id, known);
  }

  /** These records changed (a write that was not announced as it began): their copies go. */
  gone(ids: Iterable<string>): void {
    for (const id of ids) this.tidy(id, this.changed(id));
  }

  /** Notices may have been missed from now on: no copy is served or kept until `heard`. */
  lost(): void {
    this.epoch++;
    this.deafUntil = Infinity;
    // Nothing is kept until WRITE_MS after `heard`: every write begun before now has stopped counting by then.
    for (const [id, known] of this.known) {
      known.writes.clear();
      if (known.copy) this.drop(id);
      else this.tidy(id, known);
    }
  }

  /**
   * Notices are heard again (or for the first time). A write announced while they were not may still
   * be under way, so nothing is kept for as long as a write counts as under way.
   */
  heard(): void {
    this.deafUntil = this.now() + WRITE_MS;
  }

  private writing(known: Known, now: number): boolean {
    for (const [writer, until] of known.writes) {
      if (until > now) return true;
      known.writes.delete(writer);
    }
    return false;
  }

  private changed(id: string): Known {
    const known = this.entry(id);
    known.changedAt = ++this.clock;
    if (known.copy) {
      known.copy = undefined;
      this.copies--;
    }
    return known;
  }

  private entry(id: string): Known {
    let known = this.known.get(id);
    if (!known) this.known.set(id, (known = { changedAt: 0, writes: new Map(), reads: 0 }));
    return known;
  }

  private drop(id: string): void {
    const known = this.known.get(id);
    if (!known?.copy) return;
    known.copy = undefined;
    this.copies--;
    this.tidy(id, known);
  }

  private dropOldest(): void {
    for (const [id, known] of this.known) {
      if (known.copy) return this.drop(id);
    }
  }

  private forgetIdle(): void {
    for (const [id, known] of this.known) this.tidy(id, known);
  }

  /** Forgets a record nothing is known of any more (no copy, no write under way, no read in flight). */
  private tidy(id: string, known: Known): void {
    if (!known.copy && known.reads === 0 && !this.writing(known, this.now())) this.known.delete(id);
  }
}
