/** Share of the lease after the last renewal's start within which a replica still acts on its runs. */
const ACTING_SHARE = 0.75;

export interface LeaseEvents {
  /** The lease could not be renewed in time: stop acting on every run (self-fencing). */
  fenced(): void;
  /** Renewed again after `fenced`: the runs may be taken back. */
  renewed(): void;
  /** One renewal failed (logged by the owner; the lease may still hold). */
  failed(err: Error): void;
}

/**
 * Keeps a replica's lease: renews it every fifth of `leaseMs` (a failed renewal or two does no harm),
 * and tells its owner to stop acting (`fenced`) once `ACTING_SHARE` of the lease has passed since the
 * start of the last renewal that succeeded, which is before any other replica can see the lease run
 * out and claim its runs: a replica cut off from PostgreSQL, or whose connections hang, never runs an
 * execution another one has claimed. One renewal at a time: one that hangs holds one connection, not
 * one per beat.
 */
export class LeaseKeeper {
  private heartbeat?: NodeJS.Timeout;
  private deadline?: NodeJS.Timeout;
  private renewing = false;
  private stopped = false;
  private actingUntil = 0;
  /** Whether the replica has stopped acting on its runs (its lease is not known to hold). */
  fenced = false;

  constructor(
    private readonly renew: () => Promise<void>,
    private readonly leaseMs: number,
    private readonly events: LeaseEvents,
  ) {}

  /** Takes the lease (a failure is thrown: the server does not start) and keeps renewing it. */
  async start(): Promise<void> {
    const sent = Date.now();
    await this.renew();
    this.extend(sent);
    this.heartbeat = setInterval(() => void this.beat(), Math.max(200, this.leaseMs / 5));
    this.heartbeat.unref();
  }

  private async beat(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    const sent = Date.now();
    try {
      await this.renew();
      this.extend(sent);
    } catch (err) {
      this.events.failed(err as Error);
    } finally {
      this.renewing = false;
    }
  }

  /** The lease holds until at least `sent + leaseMs` (it was renewed after `sent`). */
  private extend(sent: number): void {
    const until = sent + this.leaseMs * ACTING_SHARE;
    const now = Date.now();
    // A renewal that took most of the lease proves too little: the next one decides.
    if (until <= now || this.stopped) return;
    this.actingUntil = until;
    this.arm(until - now);
    if (!this.fenced) return;
    this.fenced = false;
    this.events.renewed();
  }

  private arm(ms: number): void {
    if (this.deadline) clearTimeout(this.deadline);
    this.deadline = setTimeout(() => this.expire(), ms);
    this.deadline.unref();
  }

  private expire(): void {
    if (this.fenced || this.stopped) return;
    // A timer may fire a little early by the wall clock (libuv counts its delay from the start of the
    // loop turn that set it): wait out the rest rather than never fence.
    const left = this.actingUntil - Date.now();
    if (left > 0) return this.arm(left);
    this.fenced = true;
    this.events.fenced();
  }

  /**
   * Whether the lease is known to hold at this instant (read from the clock, not from the deadline's
   * timer, which a busy event loop may run late).
   */
  get holds(): boolean {
    return !this.fenced && !this.stopped && Date.now() < this.actingUntil;
  }

  /** Stops renewing (the replica stops, or dies in a test). */
  stop(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.deadline) clearTimeout(this.deadline);
    this.heartbeat = this.deadline = undefined;
  }
}
