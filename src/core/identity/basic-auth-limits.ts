import { AppError, ErrorCode } from '../errors/app-error';
import type { BasicLimitsConfig } from './auth.config';

/** Keys a window or cache keeps at most; past it the oldest go, so invented names cannot grow memory. */
const MAX_KEYS = 10_000;

/** Drops the oldest entries of a map kept in insertion order until it holds `max`. */
function trim(map: Map<string, unknown>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value!);
}

/** At most `limit` events per key in any `windowMs`: a sliding window of the last `limit` times. */
export class SlidingWindow {
  private readonly times = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /**
   * Milliseconds until `key` may have one more event, counting `pending` that may still be added
   * (until they are, a second is a fair guess); 0 when it may now.
   */
  waitFor(key: string, pending = 0): number {
    const recent = this.recent(key);
    if (recent.length + pending < this.limit) return 0;
    return recent.length < this.limit ? 1000 : recent[0] + this.windowMs - this.now();
  }

  add(key: string): void {
    const recent = [...this.recent(key), this.now()].slice(-this.limit);
    // Re-inserted, so the map's order is the order of last use and trimming drops the stalest keys.
    this.times.delete(key);
    this.times.set(key, recent);
    trim(this.times, MAX_KEYS);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    const recent = (this.times.get(key) ?? []).filter((t) => t > since);
    if (recent.length === 0) this.times.delete(key);
    return recent;
  }
}

/** `max` holders at once and at most `maxWaiting` in line; past that, no place. */
class Slots {
  private running = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
  ) {}

  /** Resolves once a slot is held; undefined when the line is full. */
  take(): Promise<void> | undefined {
    if (this.running < this.max) {
      this.running++;
      return Promise.resolve();
    }
    if (this.line.length >= this.maxWaiting) return undefined;
    return new Promise((resolve) => this.line.push(resolve));
  }

  release(): void {
    const next = this.line.shift();
    if (next) next();
    else this.running--;
  }
}

const tooMany = (message: string, waitMs: number) =>
  new AppError(ErrorCode.TooManyWaiting, message, {
    headers: { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  });

/**
 * Keeps Basic checks from costing the server more than `general.auth.basic_limits` allows: a bounded
 * number hash at once (the rest wait in a short line, or get 429), one address holds only a few of
 * those places, an address or a user name that failed too often in the window gets 429 without a
 * check, and a credential that just failed is refused again without hashing.
 */
export class BasicAuthLimits {
  private readonly slots: Slots;
  /** Checks admitted and not ended, per address and per user name: each may still be a failure. */
  private readonly checking = new Map<string, number>();
  private readonly failuresByAddress: SlidingWindow;
  private readonly failuresByName: SlidingWindow;
  /** Fingerprints of credentials that failed, with when that stops being remembered. */
  private readonly failed = new Map<string, number>();

  constructor(
    private readonly config: BasicLimitsConfig,
    private readonly now: () => number = Date.now,
  ) {
    this.slots = new Slots(config.max_concurrent_checks, config.max_waiting_checks);
    const windowMs = config.failure_window_seconds * 1000;
    this.failuresByAddress = new SlidingWindow(config.max_failures_per_address, windowMs, now);
    this.failuresByName = new SlidingWindow(config.max_failures_per_username, windowMs, now);
  }

  /** The credential (by fingerprint) failed a moment ago: it would fail again. */
  failedRecently(fingerprint: string): boolean {
    const until = this.failed.get(fingerprint);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.failed.delete(fingerprint);
    return false;
  }

  /**
   * Runs `check` (the hash) when the address and the user name may try now and a place is free;
   * throws a 429 AppError with Retry-After otherwise.
   */
  async run<T>(address: string, username: string, check: () => Promise<T>): Promise<T> {
    const [addressKey, nameKey] = [`address:${address}`, `name:${username}`];
    const checkingFrom = this.checking.get(addressKey) ?? 0;
    // Checks already admitted count as failures to come: a lock holds at exactly the limit.
    const byAddress = this.failuresByAddress.waitFor(address, checkingFrom);
    if (byAddress > 0) {
      throw tooMany('Too many failed sign-ins from your address; try again later.', byAddress);
    }
    const byName = this.failuresByName.waitFor(username, this.checking.get(nameKey) ?? 0);
    if (byName > 0) {
      throw tooMany('Too many failed sign-ins for this user name; try again later.', byName);
    }
    if (checkingFrom >= this.config.max_checks_per_address) {
      throw tooMany('Too many sign-ins from your address are being checked; try again shortly.', 1000);
    }
    this.count(addressKey, 1);
    this.count(nameKey, 1);
    try {
      const place = this.slots.take();
      if (!place) throw tooMany('Too many sign-ins are being checked; try again shortly.', 1000);
      await place;
      try {
        return await check();
      } finally {
        this.slots.release();
      }
    } finally {
      this.count(addressKey, -1);
      this.count(nameKey, -1);
    }
  }

  private count(key: string, delta: number): void {
    const count = (this.checking.get(key) ?? 0) + delta;
    if (count > 0) this.checking.set(key, count);
    else this.checking.delete(key);
  }

  /** A check failed: it counts against the address and the user name, and is remembered briefly. */
  recordFailure(fingerprint: string, address: string, username: string): void {
    this.failuresByAddress.add(address);
    this.failuresByName.add(username);
    const cacheMs = this.config.failure_cache_seconds * 1000;
    if (cacheMs === 0) return;
    this.failed.delete(fingerprint);
    this.failed.set(fingerprint, this.now() + cacheMs);
    trim(this.failed, MAX_KEYS);
  }
}
