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
/** A copy served since it was read is renewed once it is this old (`due`), well before it expires. */
export const RENEW_AFTER_MS = COPY_MS / 2;
/** Copies kept at most; past it the oldest goes (a copy is only ever a shortcut). */
const MAX_COPIES = 10_000;

/** A record as read, with the version the store gave it (a write of the record changes it). */
export interface VersionedRecord {
  record: Readonly<ExecutionRecord>;
  version: string;
}

interface Copy extends VersionedRecord {
  /** When the read that made it began (it is at least as new as PostgreSQL was then). */
  readAt: number;
  /** Whether a poll was served it since that read: only those are renewed. */
  served: boolean;
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

/** A copy to renew: its record as kept, and a read of its version begun (`renewed` ends it). */
export interface Renewal extends VersionedRecord {
  ticket: Ticket;
}

/**
 * Copies of execution records read from PostgreSQL, each kept until a change of it is announced
 * (record-changes.ts), and for COPY_MS at most unless renewed: a read of its version alone that finds
 * it unchanged counts as a read of the record begun then (`due`, `renewed`). A write is announced
 * before it commits; until it ends (a notice of its end, or WRITE_MS after its start was heard of, by
 * when it has committed) nothing of that record is kept, and a read begun before a change keeps
 * nothing, so a copy is never older than what PostgreSQL held since the last change this replica
 * heard of. Whether every change was heard of is the transport's part: it
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

  /** A poll was served the copy of `id`: it is renewed when it comes due. */
  served(id: string): void {
    const copy = this.known.get(id)?.copy;
    if (copy) copy.served = true;
  }

  /** The read of the ticket ended: what it read is kept when nothing changed since it began. */
  kept(ticket: Ticket, read?: VersionedRecord): void {
    const known = this.known.get(ticket.id);
    if (!known) return;
    known.reads--;
    const unchanged = known.changedAt <= ticket.clock && ticket.epoch === this.epoch;
    if (read && ticket.keepable && unchanged) {
      if (!known.copy && ++this.copies > MAX_COPIES) this.dropOldest();
      known.copy = { record: read.record, version: read.version, readAt: ticket.readAt, served: false };
    }
    this.tidy(ticket.id, known);
  }

  /**
   * The copies served since they were read and older than RENEW_AFTER_MS, each with a read begun now:
   * `renewed` must follow each, with the version the store holds now.
   */
  due(): Renewal[] {
    const now = this.now();
    const due: Renewal[] = [];
    for (const [id, { copy }] of this.known) {
      if (copy?.served && now - copy.readAt >= RENEW_AFTER_MS) {
        due.push({ record: copy.record, version: copy.version, ticket: this.reading(id) });
      }
    }
    return due;
  }

  /**
   * The version of a copy due was read (undefined: the record is gone, or the read failed): the same
   * version renews the copy as a read begun with the renewal; another drops it.
   */
  renewed(renewal: Renewal, version?: string): void {
    const { ticket } = renewal;
    if (version === renewal.version) return this.kept(ticket, renewal);
    const copy = this.known.get(ticket.id)?.copy;
    this.kept(ticket);
    if (copy?.version === renewal.version) this.drop(ticket.id);
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
