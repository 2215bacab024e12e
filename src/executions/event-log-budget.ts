/** A log whose oldest replayable events can be given up to free memory. */
export interface SheddableLog {
  /** Drops up to `bytes` of the oldest replayable events; returns the bytes freed. */
  shed(bytes: number): number;
}

/**
 * The bytes all event logs of a process keep for re-attaching clients, bounded: past the bound the
 * oldest logs give up their oldest events first. Live subscribers are not affected (they got every
 * event as it happened).
 */
export class EventLogBudget {
  private total = 0;
  /** Logs in the order they were first charged: the oldest pay first. */
  private readonly logs = new Map<SheddableLog, number>();

  constructor(readonly maxBytes: number) {}

  get usedBytes(): number {
    return this.total;
  }

  charge(log: SheddableLog, bytes: number): void {
    this.logs.set(log, (this.logs.get(log) ?? 0) + bytes);
    this.total += bytes;
    if (this.total <= this.maxBytes) return;
    for (const victim of this.logs.keys()) {
      if (this.total <= this.maxBytes) return;
      victim.shed(this.total - this.maxBytes);
    }
  }

  /** Bytes a log gave up (shed or trimmed by its own bound). */
  credit(log: SheddableLog, bytes: number): void {
    const held = this.logs.get(log);
    if (held === undefined) return;
    this.logs.set(log, held - bytes);
    this.total -= bytes;
  }

  /** The log is gone: all it held is free. */
  release(log: SheddableLog): void {
    this.total -= this.logs.get(log) ?? 0;
    this.logs.delete(log);
  }
}
