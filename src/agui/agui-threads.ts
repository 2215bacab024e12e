import type { PendingInterrupt } from './interrupts';

/**
 * What the AG-UI face remembers of one thread between runs. Plain data (JSON), so that a shared store
 * keeps it for several replicas; an `AguiThreads` adapter is the only class that stores it.
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
 * The AG-UI threads: a port (abstract class, also the DI token) with a memory adapter for one process
 * and a Postgres one for replicas. Bounded: a thread is forgotten `ttlMs` after its last run, and one
 * identity holds at most `maxPerOwner` (its least recently used idle thread is dropped for a new one;
 * when all are busy the new one is refused).
 */
export abstract class AguiThreads {
  abstract get(id: string): Promise<AguiThread | undefined>;
  /** Marks the thread busy, creating it for `owner`; false when a run is already streaming on it. */
  abstract claim(id: string, owner: string): Promise<AguiThread | false>;
  /** Stores what a run changed on the thread it holds (so other replicas see it mid-run). */
  abstract save(thread: AguiThread): Promise<void>;
  /** Ends the run on the thread with what it changed. */
  abstract release(thread: AguiThread): Promise<void>;
  /** Keeps a running thread claimed (a shared claim expires unless renewed, should its replica die). */
  abstract renew(thread: AguiThread): Promise<void>;
  /** How often a running thread's claim is renewed (null: it never lapses, nothing to renew). */
  get renewEveryMs(): number | null {
    return null;
  }
  /** Drops the expired threads (called now and then, so idle ones do not wait for a lookup). */
  abstract sweep(): Promise<void>;

  /** The interrupts the thread now waits on; the ones before are remembered as earlier. */
  setInterrupts(thread: AguiThread, interrupts: PendingInterrupt[]): void {
    const ids = thread.interrupts
      .map((p) => p.interrupt.id)
      .filter((id) => !interrupts.some((p) => p.interrupt.id === id));
    thread.earlier = [...thread.earlier, ...ids].slice(-MAX_EARLIER);
    thread.interrupts = interrupts;
  }
}

/** A new thread, claimed by its first run. */
export function newThread(id: string, owner: string, now: number): AguiThread {
  return { id, owner, cursor: 0, interrupts: [], earlier: [], busy: true, touchedAt: now };
}

/** The threads of this process (`general.executions.store: memory`). */
export class MemoryAguiThreads extends AguiThreads {
  private readonly threads = new Map<string, AguiThread>();
  private readonly owners = new Map<string, Set<string>>();

  constructor(
    private readonly maxPerOwner: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    super();
  }

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

  async claim(id: string, owner: string): Promise<AguiThread | false> {
    const existing = await this.get(id);
    if (existing) {
      if (existing.busy) return false;
      existing.busy = true;
      existing.touchedAt = this.now();
      return existing;
    }
    this.makeRoom(owner);
    const thread = newThread(id, owner, this.now());
    this.threads.set(id, thread);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(id);
    return thread;
  }

  /** The thread is the stored object itself: nothing to write. */
  async save(): Promise<void> {}

  async release(thread: AguiThread): Promise<void> {
    thread.busy = false;
    thread.touchedAt = this.now();
  }

  async renew(): Promise<void> {}

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

  async sweep(): Promise<void> {
    const now = this.now();
    for (const t of this.threads.values()) if (!t.busy && t.touchedAt + this.ttlMs <= now) this.forget(t);
  }
}
