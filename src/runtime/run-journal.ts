import { AsyncLocalStorage } from 'node:async_hooks';

/** One result a workflow depended on, at its point (`3`, `3.1` for a point inside point 3). */
export interface JournalEntry {
  point: string;
  /** What kind of result (`llm`, `tool:calculator`, `now`, `interaction`…), for people reading it. */
  kind: string;
  value: unknown;
  /**
   * The seq of the last event the run had published when this was journaled (set by the engine, not
   * the runtime): a replay that goes past the journal publishes again what came after it, unless the
   * run's log has it already.
   */
  seq?: number;
}

/** Where a run's journal entries go; resolves with the value the journal holds at that point. */
export type JournalWriter = (entry: JournalEntry) => Promise<unknown>;

/** A reserved place in the journal: what a replay finds there, and how a live run records its result. */
export interface JournalPoint {
  readonly key: string;
  /** The journaled result when the run replays past this point. */
  readonly recorded?: { value: unknown };
  /** Journals `value`; resolves with what the journal holds (the first writer's, on a race). */
  record(value: unknown): Promise<unknown>;
}

interface Scope {
  journal: RunJournal | undefined;
  key: string;
  children: number;
}

/** The point whose work runs now. One for all journals: each AsyncLocalStorage costs every async hop. */
const scopes = new AsyncLocalStorage<Scope>();

/**
 * Why a durable run stops on this replica without ending: another replica goes on with it. Waits torn
 * down for this reason record nothing (the prompt stays open for the next replica).
 */
export class HandedOver extends Error {
  constructor() {
    super('This execution was handed over to another replica');
    this.name = 'HandedOver';
  }
}

/**
 * The journal of one run. Points are numbered in the order the workflow reaches them, and points
 * reached inside another point's work (a prompt inside a tool) are numbered under it, so a replay that
 * skips a journaled tool also skips what the tool did. A run is replaying while entries it has not
 * reached yet remain and no point came up empty: its events were published already and are held back.
 */
export class RunJournal {
  private readonly entries = new Map<string, JournalEntry>();
  private readonly pending = new Set<string>();
  private readonly root: Scope = { journal: undefined, key: '', children: 0 };
  private live: boolean;
  private closed = false;
  /** Entries were replayed or written: the journal may hold some of this run's (see `holdsEntries`). */
  private touched: boolean;

  constructor(
    entries: readonly JournalEntry[],
    private readonly write: JournalWriter,
  ) {
    for (const entry of entries) {
      this.entries.set(entry.point, entry);
      this.pending.add(entry.point);
    }
    this.live = entries.length === 0;
    this.touched = entries.length > 0;
  }

  /**
   * Whether the journal may hold entries of this run: it was given some to replay, or wrote one. A run
   * that did neither (one that only asked people: prompts are journaled in its record) has nothing to
   * delete at its end.
   */
  get holdsEntries(): boolean {
    return this.touched;
  }

  /** Closed: the run was handed over (or fenced); nothing more is journaled here. */
  get isClosed(): boolean {
    return this.closed;
  }

  get replaying(): boolean {
    return !this.live;
  }

  /** Stops journaling: the run is being handed over, what it does from now on must not count. */
  close(): void {
    this.closed = true;
  }

  /** Reserves the next point where the workflow is now (call it before any await, in the workflow's order). */
  point(kind: string): JournalPoint {
    return this.reserve(kind, false);
  }

  /**
   * Reserves the next point for a value journaled elsewhere (a prompt's interaction and its answer,
   * kept in the execution's record, read back as entries by a replica taking the run over): the point,
   * found empty, does not end a replay. A journal written when such values had rows may hold one.
   */
  reserved(kind: string): JournalPoint {
    // Nothing is written at it to be refused: a run handed over stops here instead.
    if (this.closed) throw new HandedOver();
    return this.reserve(kind, true);
  }

  private reserve(kind: string, unjournaled: boolean): JournalPoint {
    const scope = this.scope;
    const key = scope.key ? `${scope.key}.${++scope.children}` : String(++scope.children);
    const entry = this.entries.get(key);
    if (entry) this.consume(key);
    else if (!unjournaled && !this.has(`${key}.`)) this.live = true;
    return {
      key,
      recorded: entry && { value: entry.value },
      record: async (value) => {
        if (this.closed) throw new HandedOver();
        this.touched = true;
        return this.write({ point: key, kind, value });
      },
    };
  }

  /** Runs `fn` with points it reaches numbered under `point`. */
  within<T>(point: JournalPoint, fn: () => Promise<T> | T): Promise<T> {
    return scopes.run({ journal: this, key: point.key, children: 0 }, async () => fn());
  }

  /** The key of the point whose work is running now (undefined at the top). */
  get current(): string | undefined {
    return this.scope.key || undefined;
  }

  private get scope(): Scope {
    const scope = scopes.getStore();
    return scope?.journal === this ? scope : this.root;
  }

  /** `fn`'s result, journaled; on a replay past this point, the journaled result without running `fn`. */
  async journaled<T>(kind: string, fn: () => Promise<T> | T): Promise<T> {
    // Handed over: another replica does this work now (a workflow that caught the abort goes no further).
    if (this.closed) throw new HandedOver();
    const point = this.point(kind);
    if (point.recorded) return point.recorded.value as T;
    const value = await this.within(point, fn);
    return (await point.record(value)) as T;
  }

  private has(prefix: string): boolean {
    for (const key of this.pending) if (key.startsWith(prefix)) return true;
    return false;
  }

  private consume(key: string): void {
    this.pending.delete(key);
    // A journaled result stands for everything journaled inside its work.
    for (const other of this.pending) if (other.startsWith(`${key}.`)) this.pending.delete(other);
    if (this.pending.size === 0) this.live = true;
  }
}
