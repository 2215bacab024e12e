import type { BackingRedis } from '../../redis/backing-redis';

/**
 * A replica's lease, in Redis: a key per replica whose TTL its heartbeat renews. A replica whose key
 * has gone is presumed dead, and the executions it ran are claimed by others.
 */
export class ReplicaLiveness {
  constructor(
    private readonly redis: BackingRedis,
    readonly replica: string,
    private readonly leaseMs: number,
  ) {}

  private keyOf(replica: string): string {
    return `${this.redis.prefix}replica:${replica}`;
  }

  /** The channel on which a stopping replica says it released executions (claimers look at once). */
  get releasedChannel(): string {
    return `${this.redis.prefix}executions-released`;
  }

  async announce(): Promise<void> {
    await this.redis.client.set(this.keyOf(this.replica), String(Date.now()), 'PX', this.leaseMs);
  }

  /** Renews the lease; false when it had run out (others may have claimed this replica's executions). */
  async renew(): Promise<boolean> {
    const renewed = await this.redis.client.pexpire(this.keyOf(this.replica), this.leaseMs);
    if (renewed === 1) return true;
    await this.announce();
    return false;
  }

  /** Which of these replicas hold a lease now. */
  async alive(replicas: string[]): Promise<Set<string>> {
    if (!replicas.length) return new Set();
    const values = await this.redis.client.mget(...replicas.map((r) => this.keyOf(r)));
    return new Set(replicas.filter((_r, i) => values[i] !== null));
  }

  /** Gives the lease up (a graceful stop) and tells the others to claim what was released. */
  async leave(): Promise<void> {
    await this.redis.client.del(this.keyOf(this.replica));
    await this.redis.client.publish(this.releasedChannel, this.replica);
  }

  /** Tells the others that there are released executions to claim (this replica is stopping). */
  async released(): Promise<void> {
    await this.redis.client.publish(this.releasedChannel, this.replica);
  }

  onReleased(listener: () => void): Promise<void> {
    return this.redis.subscribe(this.releasedChannel, listener);
  }
}
