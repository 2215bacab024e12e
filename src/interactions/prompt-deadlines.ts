/** What waits for a deadline: told once it has passed. `deadlineSlot` is the queue's own bookkeeping. */
export interface DeadlineWaiter {
  expired(): void;
  deadlineSlot: number;
}

/**
 * The deadlines of every open prompt behind one timer: a binary heap, earliest first. A Node timer per
 * waiting execution would cost it ~180 bytes (the Timeout, its arguments, its numbers); a slot here
 * costs a few. `deadlineSlot` (-1 outside the queue) lets a wait that ends otherwise leave at once.
 */
export class PromptDeadlines {
  private readonly at: number[] = [];
  private readonly waiters: DeadlineWaiter[] = [];
  private timer?: NodeJS.Timeout;
  /** When the timer fires (epoch ms). */
  private timerAt = Number.POSITIVE_INFINITY;
  private firing = false;

  get size(): number {
    return this.waiters.length;
  }

  add(waiter: DeadlineWaiter, deadline: number): void {
    this.at.push(deadline);
    this.waiters.push(waiter);
    waiter.deadlineSlot = this.waiters.length - 1;
    this.up(waiter.deadlineSlot);
    this.arm();
  }

  remove(waiter: DeadlineWaiter): void {
    const slot = waiter.deadlineSlot;
    if (slot < 0 || this.waiters[slot] !== waiter) return;
    waiter.deadlineSlot = -1;
    const last = this.waiters.length - 1;
    const lastAt = this.at.pop()!;
    const moved = this.waiters.pop()!;
    if (slot !== last) {
      this.place(slot, lastAt, moved);
      this.down(slot);
      this.up(slot);
    }
    this.arm();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.firing = true;
    try {
      const now = Date.now();
      while (this.waiters.length > 0 && this.at[0] <= now) {
        const waiter = this.waiters[0];
        this.remove(waiter);
        waiter.expired();
      }
    } finally {
      this.firing = false;
      this.arm();
    }
  }

  /** One timer, for the earliest deadline; none when nothing waits. */
  private arm(): void {
    if (this.firing) return;
    const next = this.waiters.length > 0 ? this.at[0] : Number.POSITIVE_INFINITY;
    if (next === this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = next;
    if (next === Number.POSITIVE_INFINITY) return;
    this.timer = setTimeout(() => this.fire(), Math.max(0, next - Date.now()));
  }

  private place(slot: number, at: number, waiter: DeadlineWaiter): void {
    this.at[slot] = at;
    this.waiters[slot] = waiter;
    waiter.deadlineSlot = slot;
  }

  private up(slot: number): void {
    const at = this.at[slot];
    const waiter = this.waiters[slot];
    while (slot > 0) {
      const parent = (slot - 1) >> 1;
      if (this.at[parent] <= at) break;
      this.place(slot, this.at[parent], this.waiters[parent]);
      slot = parent;
    }
    this.place(slot, at, waiter);
  }

  private down(slot: number): void {
    const n = this.waiters.length;
    const at = this.at[slot];
    const waiter = this.waiters[slot];
    for (;;) {
      const left = 2 * slot + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.at[right] < this.at[left] ? right : left;
      if (this.at[child] >= at) break;
      this.place(slot, this.at[child], this.waiters[child]);
      slot = child;
    }
    this.place(slot, at, waiter);
  }
}
