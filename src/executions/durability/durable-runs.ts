import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import type { Journal } from './journal';
import type { ClaimedRun, PostgresExecutionClaims } from './postgres-execution-claims';
import type { ReplicaLiveness } from './replica-liveness';

/** What is done with the durable runs (ExecutionTakeover): go on with claimed ones, drop its own when it lost them. */
export interface TakeoverHost {
  resume(run: ClaimedRun): Promise<void>;
  /** Stops this replica's durable runs without recording anything (its lease ran out). */
  abandon(): void;
}

/** Executions claimed per scan, so one replica does not take every orphan of a large dead one at once. */
const CLAIM_BATCH = 100;

/**
 * Durable waits (`general.executions.store: postgres`): this replica's lease (heartbeat), the claimer
 * that takes over the executions of replicas whose lease ran out, and the journal their replays read.
 * A claim lands within about `lease_seconds` plus one scan (a quarter of the lease) after a replica
 * dies, and at once after one stops gracefully (it releases its executions and says so).
 */
export class DurableRuns {
  private readonly logger = new Logger('DurableRuns');
  readonly replica = randomUUID();
  private heartbeat?: NodeJS.Timeout;
  private scanner?: NodeJS.Timeout;
  private scanning?: Promise<void>;
  /** Once set, this replica claims nothing and owns nothing new (it stops, or it is presumed dead). */
  stopped = false;
  /** Set once the lifecycle listeners are subscribed (see `listening`): claims wait for it. */
  private heard = false;

  private readonly mine: ReplicaLiveness;

  constructor(
    readonly journal: Journal,
    private readonly claims: PostgresExecutionClaims,
    liveness: (replica: string) => ReplicaLiveness,
    readonly leaseMs: number,
    /**
     * Resolves once the process's event listeners are subscribed (Nest does it after every module's
     * init, and this starts during it): a run taken over sooner could end with nobody to hear it.
     */
    private readonly listening: Promise<unknown> = Promise.resolve(),
  ) {
    this.mine = liveness(this.replica);
  }

  async start(host: TakeoverHost): Promise<void> {
    await this.mine.announce();
    await this.mine.onReleased(() => void this.scan(host));
    this.heartbeat = setInterval(() => void this.beat(host), Math.max(200, this.leaseMs / 3));
    this.scanner = setInterval(() => void this.scan(host), Math.max(250, this.leaseMs / 4));
    this.heartbeat.unref();
    this.scanner.unref();
    void this.listening.then(
      () => {
        this.heard = true;
        return this.scan(host);
      },
      () => undefined,
    );
  }

  private async beat(host: TakeoverHost): Promise<void> {
    try {
      if (!(await this.mine.renew()) && !this.stopped) {
        this.logger.warn(`Replica ${this.replica}: its lease ran out; its executions go to other replicas`);
        host.abandon();
      }
    } catch (err) {
      this.logger.warn(`Replica ${this.replica}: cannot renew its lease: ${(err as Error).message}`);
    }
  }

  /** Claims the executions of replicas that are gone (and released ones), and goes on with each. */
  scan(host: TakeoverHost): Promise<void> {
    if (this.stopped || !this.heard) return Promise.resolve();
    return (this.scanning ??= this.claimOrphans(host).finally(() => (this.scanning = undefined)));
  }

  private async claimOrphans(host: TakeoverHost): Promise<void> {
    try {
      const owners = (await this.claims.owners()).filter((o) => o !== this.replica);
      if (!owners.length) return;
      const alive = await this.mine.alive(owners.filter((o): o is string => o !== null));
      const orphaned = owners.filter((o) => o === null || !alive.has(o));
      if (!orphaned.length || this.stopped) return;
      const claimed = await this.claims.claim(this.replica, orphaned, CLAIM_BATCH);
      for (const run of claimed) {
        host.resume(run).catch((err: Error) => {
          this.logger.error(`Could not take over execution ${run.id}: ${err.message}; releasing it`);
          void this.claims.release(this.replica, [run.id]).catch(() => undefined);
        });
      }
    } catch (err) {
      this.logger.warn(`Looking for orphaned executions failed: ${(err as Error).message}`);
    }
  }

  /** Graceful stop: no more claims; what this replica ran is released for the others to claim at once. */
  async handOver(): Promise<void> {
    this.stop();
    await this.scanning;
    try {
      await this.claims.release(this.replica);
      await this.mine.leave();
    } catch (err) {
      // Then they are claimed once this replica's lease runs out.
      this.logger.error(`Could not release this replica's executions: ${(err as Error).message}`);
    }
  }

  /** Another replica is to claim what this stopping one was asked to start (released at once). */
  async passOn(): Promise<void> {
    await this.mine.released();
  }

  /** Stops heartbeat and claims, and writes nothing: what a replica that dies leaves behind (tests). */
  stop(): void {
    this.stopped = true;
    if (this.heartbeat) clearInterval(this.heartbeat);
    if (this.scanner) clearInterval(this.scanner);
  }
}
