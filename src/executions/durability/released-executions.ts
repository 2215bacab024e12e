import type { BackingRedis } from '../../redis/backing-redis';

/**
 * The Redis channel on which a stopping replica says it released executions, so the others claim them
 * at once rather than at their next scan. Only a hint: a message lost with Redis delays a claim by one
 * scan (a quarter of the lease), never loses it (the leases and claims are in PostgreSQL).
 */
export class ReleasedExecutions {
  constructor(private readonly redis: BackingRedis) {}

  private get channel(): string {
    return `${this.redis.prefix}executions-released`;
  }

  /** Tells the others that there are released executions to claim. */
  async tell(replica: string): Promise<void> {
    await this.redis.client.publish(this.channel, replica);
  }

  onReleased(listener: () => void): Promise<void> {
    return this.redis.subscribe(this.channel, listener);
  }
}
