/** A log whose oldest replayable events can be given up to free memory. */
export interface SheddableLog {
  /** Drops up to `bytes` of the oldest replayable events; returns the bytes freed. */
  shed(bytes: number): number;
  /** What it holds now: all it was charged, less what it gave up. */
  readonly keptBytes: number;
}

/** Past the bound, logs shed down to this share of it, so the scan for victims runs rarely. */
const SHED_TO = 0.9;

/**
 * The bytes all event logs of a process keep for re-attaching clients, bounded: past the bound the
 * oldest logs give up their oldest events first. Live subscribers are not affected (they got every
 * event as it happened).
 */
export class EventLogBudget {
  private total = 0;
  /**
   * Logs that may still have something to give up, in the order they were first charged (the oldest
   * pay first). A log that gave up nothing leaves it until it is charged again, so a process holding
   * thousands of finished logs does not scan them on every event.
   */
  private readonly candidates = new Set<SheddableLog>();

  constructor(readonly maxBytes: number) {}

  get usedBytes(): number {
    return this.total;
  }

  // What each log holds is its own count (`keptBytes`), not a second one kept here per log.
  charge(log: SheddableLog, bytes: number): void {
    this.candidates.add(log);
    this.total += bytes;
    if (this.total <= this.maxBytes) return;
    const target = Math.floor(this.maxBytes * SHED_TO);
    for (const victim of this.candidates) {
      if (this.total <= target) return;
      if (victim.shed(this.total - target) === 0) this.candidates.delete(victim);
    }
  }

  /** Bytes a log gave up (shed or trimmed by its own bound). */
  credit(_log: SheddableLog, bytes: number): void {
    this.total -= bytes;
  }

  /** The log is gone (call before it forgets what it kept): all it held is free. */
  release(log: SheddableLog): void {
    this.total -= log.keptBytes;
    this.candidates.delete(log);
  }
}
