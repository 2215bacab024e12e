import { Logger } from '@nestjs/common';
import { RedisClient, redactRedisUrl } from './redis-client';

/**
 * The Redis the scale-out adapters share (event logs, wake-ups), or none (the memory store). One
 * command connection; blocking readers and subscribers open their own with `connection()`.
 */
export class BackingRedis {
  private static readonly logger = new Logger('Redis');
  private readonly extra = new Set<RedisClient>();
  private subscriber?: RedisClient;

  private constructor(
    private readonly shared: RedisClient | undefined,
    /** Prefix of every key and channel. */
    readonly prefix: string,
    readonly url?: string,
  ) {}

  static none(): BackingRedis {
    return new BackingRedis(undefined, '');
  }

  /** Connects (and checks the server answers) before the server listens. */
  static async open(url: string, prefix: string): Promise<BackingRedis> {
    const client = RedisClient.fromUrl(url);
    try {
      await client.command('PING');
    } catch (err) {
      client.close();
      throw new Error(`Cannot reach Redis at ${redactRedisUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    BackingRedis.logger.log(`${redactRedisUrl(url)}: connected (keys under "${prefix}")`);
    return new BackingRedis(client, prefix, url);
  }

  get configured(): boolean {
    return this.shared !== undefined;
  }

  /** The shared command connection. */
  get client(): RedisClient {
    if (!this.shared) throw new Error('No Redis is configured (general.executions.store is memory)');
    return this.shared;
  }

  /** A connection of its own (a subscriber, a blocking reader); closed with `release` or `close`. */
  connection(): RedisClient {
    const client = this.client.duplicate();
    this.extra.add(client);
    return client;
  }

  /** Receives what is published on `channel`, over the one subscriber connection of this process. */
  subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.subscriber ??= this.connection();
    return this.subscriber.subscribe(channel, onMessage);
  }

  release(client: RedisClient): void {
    client.close();
    this.extra.delete(client);
  }

  /** Closes every connection; the shared one after what was sent on it is answered. */
  async close(): Promise<void> {
    for (const client of this.extra) client.close();
    this.extra.clear();
    await this.shared?.quit();
  }
}
