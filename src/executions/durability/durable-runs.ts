import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Journal } from './journal';
import { LeaseKeeper } from './lease-keeper';
import type { ClaimedRun, PostgresExecutionClaims } from './postgres-execution-claims';
import type { PostgresReplicaLeases } from './postgres-replica-leases';
import type { ReleasedExecutions } from './released-executions';
import { ResumeQueue } from './resume-queue';

/** What is done with the durable runs (ExecutionTakeover): go on with claimed ones, drop its own when it lost them. */
export interface TakeoverHost {
  resume(run: ClaimedRun): Promise<void>;
  /** Stops this replica's durable runs without recording anything; returns their ids. */
  abandon(): string[];
}

/** Executions claimed per statement; a full batch is followed by another at once (see `claimOrphans`). */
const CLAIM_BATCH = 100;
/** Claimed runs waiting to be resumed past which a replica leaves the other orphans to the others. */
const MAX_QUEUED = 2000;
/** How long after another replica's lease runs out the claim timed for that moment is made. */
const AFTER_EXPIRY_MS = 5;

/** What happened to leases and claims since start-up (`/metrics`). */
export interface DurableCounts {
  /** Executions claimed from replicas whose lease ran out, or released ones. */
  claimed: number;
  /** Executions taken back after this replica's lease held again. */
  reclaimed: number;
  /** Runs this replica stopped because it could not prove it still owned them. */
  fenced: number;
}

/**
 * Durable waits (`general.executions.store: postgres`): this replica's lease in PostgreSQL (heartbeat,
 * self-fencing), the claimer that takes over the executions of replicas whose lease ran out (each claim
 * a new epoch of the execution, its fencing token), and the journal their replays read. A claim lands
 * about `lease_seconds` after a replica dies: each heartbeat learns when the first other lease runs out,
 * and a claim is timed for that moment (a lease renewed meanwhile moves it on); scans every quarter
 * lease claim what that missed. One that stops gracefully releases its executions and says so over
 * Redis: they are claimed at once.
 */
export class DurableRuns {
  private readonly logger = new Logger('DurableRuns');
  readonly replica = randomUUID();
  private scanner?: NodeJS.Timeout;
  /** The claim timed for when the first other replica's lease runs out (`watchLeases`). */
  private atExpiry?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  private host?: TakeoverHost;
  /** Once set, this replica claims nothing and owns nothing new (it stops). */
  stopped = false;
  /** Set when it starts handing its runs over: it claims and starts nothing, its lease still kept. */
  private leaving = false;
  /** Set once the lifecycle listeners are subscribed (see `listening`): claims wait for it. */
  private heard = false;
  /** Runs stopped when the lease could not be renewed, taken back once it is. */
  private readonly fencedIds = new Set<string>();
  private readonly lease: LeaseKeeper;
  readonly counts: DurableCounts = { claimed: 0, reclaimed: 0, fenced: 0 };
  /** Claimed runs, resumed a bounded number at a time (resume-queue.ts). */
  private readonly resuming = new ResumeQueue<ClaimedRun>((run) => this.resumeOne(run));

  constructor(
    readonly journal: Journal,
    private readonly claims: PostgresExecutionClaims,
    private readonly leases: PostgresReplicaLeases,
    private readonly released: ReleasedExecutions,
    readonly leaseMs: number,
    /**
     * Resolves once the process's event listeners are subscribed (Nest does it after every module's
     * init, and this starts during it): a run taken over sooner could end with nobody to hear it.
     */
    private readonly listening: Promise<unknown> = Promise.resolve(),
  ) {
    const renew = () => this.leases.renew(this.replica, leaseMs).then((ms) => this.watchLeases(ms));
    this.lease = new LeaseKeeper(renew, leaseMs, {
      fenced: () => this.fence(),
      renewed: () => void this.rejoin(),
      failed: (err) => this.logger.warn(`Replica ${this.replica}: cannot renew its lease: ${err.message}`),
    });
  }

  /** Whether this replica acts on its runs now (its lease is known to hold). */
  get acting(): boolean {
    return !this.lease.fenced && !this.stopped && !this.leaving;
  }

  /** Whether no other replica can claim this one's runs now: acting, and the lease holds by the clock. */
  get holdsRuns(): boolean {
    return this.acting && this.lease.holds;
  }

  /**
   * The first step of a graceful stop: no more claims, and what it is asked to start is recorded
   * released; the lease is kept (it still fences) until `handOver` releases what it runs.
   */
  leave(): void {
    this.leaving = true;
  }

  async start(host: TakeoverHost): Promise<void> {
    this.host = host;
    await this.lease.start();
    await this.released.onReleased(() => void this.scan(host));
    this.scanner = setInterval(() => void this.scan(host), Math.max(250, this.leaseMs / 4));
    this.scanner.unref();
    void this.listening.then(
      () => {
        this.heard = true;
        return this.scan(host);
      },
      () => undefined,
    );
  }

  /**
   * Times a claim for when the first other replica's lease runs out (`ms` from now, on PostgreSQL's
   * clock, as this heartbeat read it): a replica that died is claimed from then, not up to a scan
   * later; a live one renews before, and the next heartbeat moves the claim on.
   */
  private watchLeases(ms: number | undefined): void {
    if (this.atExpiry) clearTimeout(this.atExpiry);
    this.atExpiry = undefined;
    const host = this.host;
    if (ms === undefined || !host || this.stopped) return;
    this.atExpiry = setTimeout(() => void this.scan(host), ms + AFTER_EXPIRY_MS);
    this.atExpiry.unref();
  }

  /** The lease may have run out: stop acting on every run before another replica can claim them. */
  private fence(): void {
    if (this.stopped || !this.host) return;
    const ids = this.host.abandon();
    for (const id of ids) this.fencedIds.add(id);
    this.counts.fenced += ids.length;
    this.logger.warn(
      `Replica ${this.replica}: lease not renewed for ${Math.round(this.leaseMs * 0.75)} ms; stopped acting on ${ids.length} execution(s) (self-fenced) until it is`,
    );
  }

  /** The lease holds again: takes back the runs it stopped that no other replica claimed meanwhile. */
  private async rejoin(): Promise<void> {
    const host = this.host;
    if (this.stopped || this.leaving || !host) return;
    const ids = [...this.fencedIds];
    if (!ids.length) return;
    this.fencedIds.clear();
    try {
      const runs = await this.claims.reclaim(this.replica, ids);
      this.counts.reclaimed += runs.length;
      this.logger.log(
        `Replica ${this.replica}: lease renewed again; took back ${runs.length} of ${ids.length} execution(s) (the others were claimed by other replicas or ended)`,
      );
      this.resumeAll(host, runs);
    } catch (err) {
      for (const id of ids) this.fencedIds.add(id);
      this.logger.warn(
        `Replica ${this.replica}: could not take its executions back: ${(err as Error).message}`,
      );
    }
  }

  /** Claims the executions of replicas that are gone (and released ones), and goes on with each. */
  scan(host: TakeoverHost): Promise<void> {
    if (!this.acting || !this.heard) return Promise.resolve();
    return (this.scanning ??= this.claimOrphans(host).finally(() => (this.scanning = undefined)));
  }

  private async claimOrphans(host: TakeoverHost): Promise<void> {
    try {
      if (this.fencedIds.size) await this.rejoin();
      // A full batch: a large replica died; the rest are claimed at once, not a scan (¼ lease) later.
      for (let full = true; full && this.acting && this.resuming.size < MAX_QUEUED;) {
        const claimed = await this.claims.claim(this.replica, CLAIM_BATCH);
        if (!claimed.length) return;
        full = claimed.length === CLAIM_BATCH;
        this.counts.claimed += claimed.length;
        this.logger.log(
          `Replica ${this.replica}: claimed ${claimed.length} execution(s) of replicas gone or stopped`,
        );
        this.resumeAll(host, claimed);
      }
    } catch (err) {
      this.logger.warn(`Looking for orphaned executions failed: ${(err as Error).message}`);
    }
  }

  private resumeAll(host: TakeoverHost, runs: ClaimedRun[]): void {
    this.host = host;
    this.resuming.push(runs);
  }

  private async resumeOne(run: ClaimedRun): Promise<void> {
    // Fenced while it waited: taken back with the others once the lease holds again. Stopping: released.
    if (!this.acting) {
      if (this.lease.fenced && !this.stopped) this.fencedIds.add(run.id);
      return;
    }
    await this.host!.resume(run).catch((err: Error) => {
      this.logger.error(`Could not take over execution ${run.id}: ${err.message}; releasing it`);
      void this.claims.release(this.replica, [run.id]).catch(() => undefined);
    });
  }

  /** Graceful stop: no more claims; what this replica ran is released for the others to claim at once. */
  async handOver(): Promise<void> {
    this.stop();
    await this.scanning;
    try {
      await this.claims.release(this.replica);
      await this.leases.leave(this.replica);
    } catch (err) {
      // Then they are claimed once this replica's lease runs out.
      this.logger.error(`Could not release this replica's executions: ${(err as Error).message}`);
      return;
    }
    await this.passOn();
  }

  /** Lets go of runs this replica recorded as its own while it began to stop (claimed elsewhere at once). */
  release(ids: string[]): Promise<void> {
    return this.claims.release(this.replica, ids);
  }

  /** Another replica is to claim what this stopping one was asked to start (released at once). */
  async passOn(): Promise<void> {
    // Without Redis the others claim at their next scan.
    await this.released.tell(this.replica).catch(() => undefined);
  }

  /** Stops heartbeat and claims, and writes nothing: what a replica that dies leaves behind (tests). */
  stop(): void {
    this.stopped = true;
    this.lease.stop();
    if (this.scanner) clearInterval(this.scanner);
    if (this.atExpiry) clearTimeout(this.atExpiry);
  }
}
