import type { ExecutionRecord } from '../model/execution-record';
import { WAITING_STATUSES } from '../model/execution-state';

/** How long a count read from the shared store is used before it is read again (ms). */
export const COUNT_FRESH_MS = 1000;
/** Counts kept at most; past it the stale ones are dropped. */
const MAX_KEYS = 10_000;

interface Count {
  n: number;
  readAt: number;
}

/**
 * The counts of waiting executions the capacity limits check on every start that may wait (all of
 * them, per owner, anonymous, per client address), so a start does not cost three COUNT queries on the
 * shared store. A count well under its limit (under half of it) is read at most once a second per key,
 * and this replica's own waits that begin or end meanwhile are added to it at once; a count past half
 * its limit is read every time. So a limit holds exactly near it, and far from it other replicas'
 * new waits are seen within a second.
 */
export class WaitingCounts {
  private readonly counts = new Map<string, Count>();
  /** Reads under way of counts that may be a second old, one per key: starts arriving meanwhile share it. */
  private readonly reads = new Map<string, Promise<number>>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The count under `key`: the one held when it is fresh and under `cachedBelow`, else read with `read`,
   * once for all the starts that find it a second old meanwhile (a count near its limit is read from
   * the shared store by each start that needs it).
   */
  get(key: string, read: () => Promise<number>, cachedBelow = 0): Promise<number> {
    const now = this.now();
    const held = this.counts.get(key);
    if (!held || held.n >= cachedBelow) return this.read(key, read, now);
    if (now - held.readAt < COUNT_FRESH_MS) return Promise.resolve(held.n);
    let shared = this.reads.get(key);
    if (!shared) {
      shared = this.read(key, read, now);
      this.reads.set(key, shared);
      const done = () => this.reads.delete(key);
      shared.then(done, done);
    }
    return shared;
  }

  private async read(key: string, read: () => Promise<number>, now: number): Promise<number> {
    const n = await read();
    if (this.counts.size >= MAX_KEYS) this.prune(now);
    this.counts.set(key, { n, readAt: now });
    return n;
  }

  /** A record this replica changed: the counts it belongs to move by one when it starts or stops waiting. */
  changed(before: ExecutionRecord, after: ExecutionRecord): void {
    const was = WAITING_STATUSES.includes(before.status);
    const is = WAITING_STATUSES.includes(after.status);
    if (was === is) return;
    const by = is ? 1 : -1;
    for (const key of keysOf(is ? after : before)) {
      const held = this.counts.get(key);
      if (held) held.n = Math.max(0, held.n + by);
    }
  }

  private prune(now: number): void {
    for (const [key, count] of this.counts) {
      if (now - count.readAt >= COUNT_FRESH_MS) this.counts.delete(key);
    }
  }
}

/** The keys of the counts a waiting record is in. */
export function keysOf(record: Pick<ExecutionRecord, 'ownerId' | 'clientAddress'>): string[] {
  const keys = ['all', ownerKey(record.ownerId)];
  if (record.clientAddress !== undefined) keys.push(addressKey(record.clientAddress));
  return keys;
}

export const ownerKey = (ownerId: string | null | undefined): string =>
  ownerId === undefined ? 'all' : ownerId === null ? 'anonymous' : `owner:${ownerId}`;

export const addressKey = (address: string): string => `address:${address}`;
