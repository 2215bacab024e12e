import type { PendingInterrupt } from './interrupts';

/**
 * What the AG-UI face remembers of one thread between runs. Plain data (JSON), so that a shared store
 * keeps it for several replicas; an `AguiThreads` adapter is the only class that stores it.
 */
export interface AguiThread {
  /** The client's `threadId`: a thread is its owner's, another owner's same id is another thread. */
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
 * The AG-UI threads, by owner and thread id: a port (abstract class, also the DI token) with a memory
 * adapter for one process and a Postgres one for replicas. Bounded: a thread is forgotten `ttlMs` after
 * its last run, and one identity holds at most `maxPerOwner` (its least recently used idle thread that
 * waits on no interrupt is dropped for a new one; when there is none the new one is refused).
 */
export abstract class AguiThreads {
  abstract get(id: string, owner: string): Promise<AguiThread | undefined>;
  /** Marks `owner`'s thread busy, creating it; false when a run is already streaming on it. */
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

/** Whether the thread may make room for a new one: no run streams on it, and it waits on no interrupt. */
export function evictable(thread: AguiThread): boolean {
  return !thread.busy && thread.interrupts.length === 0;
}

export function tooManyThreads(max: number): ThreadLimitError {
  return new ThreadLimitError(
    `At most ${max} AG-UI threads per user, and none can make room (each is running or waits on an interrupt)`,
  );
}

/** A new thread, claimed by its first run. */
export function newThread(id: string, owner: string, now: number): AguiThread {
  return { id, owner, cursor: 0, interrupts: [], earlier: [], busy: true, touchedAt: now };
}

/** The threads of this process (`general.executions.store: memory`). */
export class MemoryAguiThreads extends AguiThreads {
  /** By `keyOf(owner, id)`. */
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

  async get(id: string, owner: string): Promise<AguiThread | undefined> {
    const thread = this.threads.get(keyOf(owner, id));
    if (thread && !thread.busy && thread.touchedAt + this.ttlMs <= this.now()) {
      this.forget(thread);
      return undefined;
    }
    return thread;
  }

  async claim(id: string, owner: string): Promise<AguiThread | false> {
    const existing = await this.get(id, owner);
    if (existing) {
      if (existing.busy) return false;
      existing.busy = true;
      existing.touchedAt = this.now();
      return existing;
    }
    this.makeRoom(owner);
    const thread = newThread(id, owner, this.now());
    const key = keyOf(owner, id);
    this.threads.set(key, thread);
    let own = this.owners.get(owner);
    if (!own) this.owners.set(owner, (own = new Set()));
    own.add(key);
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
    for (const key of own) {
      const t = this.threads.get(key)!;
      if (evictable(t) && (!oldest || t.touchedAt < oldest.touchedAt)) oldest = t;
    }
    if (!oldest) throw tooManyThreads(this.maxPerOwner);
    this.forget(oldest);
  }

  private forget(thread: AguiThread): void {
    const key = keyOf(thread.owner, thread.id);
    this.threads.delete(key);
    const own = this.owners.get(thread.owner);
    own?.delete(key);
    if (own?.size === 0) this.owners.delete(thread.owner);
  }

  async sweep(): Promise<void> {
    const now = this.now();
    for (const t of this.threads.values()) if (!t.busy && t.touchedAt + this.ttlMs <= now) this.forget(t);
  }
}

/** Owner ids (uuids, `anonymous`) hold no NUL, so the first one splits a key back into its pair. */
function keyOf(owner: string, id: string): string {
  return `${owner}\u0000${id}`;
}
