import type { PendingInterrupt } from './interrupts';

/**
 * What the AG-UI face remembers of one thread between runs. Plain data, so that a later issue can keep
 * it in a shared store (Redis, Postgres) behind a port, for several replicas; `AguiThreads` is the
 * only class that reads and writes it.
 */
export interface AguiThread {
  id: string;
  /** The identity that created it (`anonymous` for anonymous callers). */
  owner: string;
  /** The execution the thread's runs follow; a new one starts when it has ended. */
  executionId?: string;
  /** The last execution event a run of this thread rendered; the next run continues after it. */
  cursor: number;
  /** The interrupts the last run ended with (some may have been answered elsewhere since). */
  interrupts: PendingInterrupt[];
  /** Ids of earlier interrupts of the thread (bounded): a resume naming one is known, not covering. */
  earlier: string[];
  /** The last resume accepted: a replay of it re-attaches to what it started (rule 5). */
  lastResume?: { fingerprint: string; executionId: string; afterSeq: number };
  /** A run is streaming on the thread (a second one gets THREAD_BUSY). */
  busy: boolean;
  touchedAt: number;
}

const MAX_EARLIER = 100;

export class ThreadLimitError extends Error {}

/**
 * The threads of this process, bounded: a thread is forgotten `ttlMs` after its last run, and one
 * identity holds at most `maxPerOwner` (its least recently used idle thread is dropped for a new one;
 * when all are busy the new one is refused). Every method is async so that a shared store can take
 * its place without changing callers.
 */
export class AguiThreads {
  private readonly threads = new Map<string, AguiThread>();
  private readonly owners = new Map<string, Set<string>>();

  constructor(
    private readonly maxPerOwner: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.threads.size;
  }

  async get(id: string): Promise<AguiThread | undefined> {
    const thread = this.threads.get(id);
    if (thread && !thread.busy && thread.touchedAt + this.ttlMs <= this.now()) {
      this.forget(thread);
      return undefined;
    }
    return thread;
  }

  /** Marks the thread busy, creating it for `owner`; false when a run is already streaming on it. */
  async claim(id: string, owner: string): Promise<AguiThread | false> {
    const existing = await this.get(id);
    if (existing) {
      if (existing.busy) return false;
      existing.busy = true;
      existing.touchedAt = this.now();
      return existing;
    }
    this.makeRoom(owner);
    const thread: AguiThread = {
      id,
      owner,
      cursor: 0,
      interrupts: [],
      earlier: [],
      busy: true,
      touchedAt: this.now(),
    };
    this.threads.set(id, thread);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(id);
    return thread;
  }

  /** The interrupts the thread now waits on; the ones before are remembered as earlier. */
  setInterrupts(thread: AguiThread, interrupts: PendingInterrupt[]): void {
    const ids = thread.interrupts
      .map((p) => p.interrupt.id)
      .filter((id) => !interrupts.some((p) => p.interrupt.id === id));
    thread.earlier = [...thread.earlier, ...ids].slice(-MAX_EARLIER);
    thread.interrupts = interrupts;
  }

  /** Ends the run on the thread with what it changed. */
  async release(thread: AguiThread): Promise<void> {
    thread.busy = false;
    thread.touchedAt = this.now();
  }

  private makeRoom(owner: string): void {
    const own = this.owners.get(owner);
    if (!own || own.size < this.maxPerOwner) return;
    let oldest: AguiThread | undefined;
    for (const id of own) {
      const t = this.threads.get(id)!;
      if (!t.busy && (!oldest || t.touchedAt < oldest.touchedAt)) oldest = t;
    }
    if (!oldest) throw new ThreadLimitError(`At most ${this.maxPerOwner} AG-UI threads per user`);
    this.forget(oldest);
  }

  private forget(thread: AguiThread): void {
    this.threads.delete(thread.id);
    const own = this.owners.get(thread.owner);
    own?.delete(thread.id);
    if (own?.size === 0) this.owners.delete(thread.owner);
  }

  /** Drops the expired threads (called now and then, so idle ones do not wait for a lookup). */
  sweep(): void {
    const now = this.now();
    for (const t of this.threads.values()) if (!t.busy && t.touchedAt + this.ttlMs <= now) this.forget(t);
  }
}
