/** What one process lets run at once. */
export interface SlotLimits {
  /** Jobs running at once (`max_concurrent_jobs`). */
  concurrency: number;
  /** Jobs one identified user runs at once (`max_running_jobs_per_user`). */
  perUser: number;
  /** Jobs all anonymous callers together run at once (`max_running_anonymous_jobs`). */
  anonymous: number;
}

/** A running job's hold on a slot. */
export interface Slot {
  /** The job waits for a person: its slot goes to the next job. */
  release(): void;
  /** The answer came: resolves once the job holds a slot again (ahead of jobs not started yet). */
  again(): Promise<void>;
  /** The job ended (or was cancelled): gives back the slot it holds, or stops waiting for one. */
  end(): void;
}

/** Why a job that could run is held back: its owner (or the anonymous pool) runs its share already. */
export type Held = (reason: string) => void;

interface Waiter {
  owner: string | null;
  grant: () => void;
  held?: Held;
  /** Whether `held` was told (once per job). */
  told?: boolean;
}

/**
 * The slots of one process (the server with `in_process`, each `interlude worker`): at most
 * `concurrency` jobs run at once, at most `perUser` of one user's and `anonymous` of anonymous
 * callers'. Jobs take slots in submission order, except that one whose owner is at their cap is
 * passed over (it keeps its place); a job waiting for a person holds no slot, and takes one again,
 * before any job that has not started, once its answer comes.
 */
export class JobSlots {
  private running = 0;
  private readonly byOwner = new Map<string, number>();
  /** Jobs resuming after a person's answer, then jobs not started yet, each in arrival order. */
  private readonly resuming: Waiter[] = [];
  private readonly fresh: Waiter[] = [];

  constructor(readonly limits: SlotLimits) {}

  /** Jobs waiting for a slot that have not started. */
  get queued(): number {
    return this.fresh.length;
  }

  get active(): number {
    return this.running;
  }

  /** Whether a job of `owner` would be held back by its owner's cap right now. */
  atCap(owner: string | null): boolean {
    return (this.byOwner.get(keyOf(owner)) ?? 0) >= this.capOf(owner);
  }

  /** What a job held back by its owner's cap is told. */
  heldReason(owner: string | null): string {
    return owner === null
      ? `Anonymous callers run ${this.limits.anonymous} jobs at once (general.async.max_running_anonymous_jobs); this one starts when one of them ends or waits for a person`
      : `You run ${this.limits.perUser} jobs at once (general.async.max_running_jobs_per_user); this one starts when one of them ends or waits for a person`;
  }

  /**
   * Resolves with the job's slot once it may run; `signal` (a cancel) gives up the wait. `held` is
   * told (once) when the job could run but for its owner's cap.
   */
  take(owner: string | null, signal?: AbortSignal, held?: Held): Promise<Slot> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    return new Promise((resolve, reject) => {
      const cancel = () => {
        if (remove(this.fresh, waiter)) reject(signal!.reason as Error);
      };
      const waiter: Waiter = {
        owner,
        held,
        grant: () => {
          signal?.removeEventListener('abort', cancel);
          resolve(this.slotOf(waiter));
        },
      };
      signal?.addEventListener('abort', cancel, { once: true });
      this.fresh.push(waiter);
      this.pump();
    });
  }

  private slotOf(waiter: Waiter): Slot {
    let holding = true;
    let ended = false;
    let resume: (() => void) | undefined;
    return {
      release: () => {
        if (!holding || ended) return;
        holding = false;
        this.free(waiter.owner);
      },
      again: () =>
        new Promise<void>((resolve) => {
          if (holding || ended) return resolve();
          resume = resolve;
          waiter.grant = () => {
            holding = true;
            resume = undefined;
            resolve();
          };
          this.resuming.push(waiter);
          this.pump();
        }),
      end: () => {
        if (ended) return;
        ended = true;
        // Ended while it waited for a slot to go on (cancelled): it goes on, to its end, without one.
        if (remove(this.resuming, waiter)) resume?.();
        if (!holding) return;
        holding = false;
        this.free(waiter.owner);
      },
    };
  }

  private free(owner: string | null): void {
    this.running--;
    const key = keyOf(owner);
    const count = (this.byOwner.get(key) ?? 1) - 1;
    if (count === 0) this.byOwner.delete(key);
    else this.byOwner.set(key, count);
    this.pump();
  }

  /** Grants free slots: resuming jobs first, then fresh ones, each the first whose owner has room. */
  private pump(): void {
    for (const queue of [this.resuming, this.fresh]) {
      for (let i = 0; i < queue.length && this.running < this.limits.concurrency;) {
        const waiter = queue[i];
        if (this.atCap(waiter.owner)) {
          if (queue === this.fresh && !waiter.told) {
            waiter.told = true;
            waiter.held?.(this.heldReason(waiter.owner));
          }
          i++;
          continue;
        }
        queue.splice(i, 1);
        this.running++;
        const key = keyOf(waiter.owner);
        this.byOwner.set(key, (this.byOwner.get(key) ?? 0) + 1);
        waiter.grant();
      }
    }
  }

  private capOf(owner: string | null): number {
    return owner === null ? this.limits.anonymous : this.limits.perUser;
  }
}

/** Anonymous callers share one key; no user id is empty. */
const keyOf = (owner: string | null): string => owner ?? '';

function remove<T>(list: T[], item: T): boolean {
  const at = list.indexOf(item);
  if (at < 0) return false;
  list.splice(at, 1);
  return true;
}
