import type { Logger } from '@nestjs/common';
import type { BackingRedis } from './backing-redis';

export interface RedisChannelOptions {
  /** The channel's name, under the Redis prefix. */
  name: string;
  /** A message longer than this is not ours: it is dropped unread. */
  maxChars: number;
  /** Where a message that cannot be read is reported, as "Ignored a malformed <what>: <why>". */
  logger: Pick<Logger, 'warn'>;
  what: string;
}

/**
 * A channel of JSON messages that every replica subscribes to, named under the Redis prefix. It rides on
 * the process's one subscriber connection, which BackingRedis subscribes again after a lost connection.
 */
export class RedisChannel {
  readonly name: string;

  constructor(
    private readonly redis: BackingRedis,
    private readonly options: RedisChannelOptions,
  ) {
    this.name = `${redis.prefix}${options.name}`;
  }

  /**
   * Hands every message published from now on to `onMessage`, parsed; resolves once subscribed. A
   * message that is not JSON, or that `onMessage` throws on, is reported and dropped.
   */
  subscribe(onMessage: (value: unknown) => void): Promise<void> {
    const { maxChars, logger, what } = this.options;
    return this.redis.subscribe(this.name, (message) => {
      if (message.length > maxChars) return;
      try {
        onMessage(JSON.parse(message));
      } catch (err) {
        logger.warn(`Ignored a malformed ${what}: ${(err as Error).message}`);
      }
    });
  }

  async publish(value: unknown): Promise<void> {
    await this.redis.client.publish(this.name, JSON.stringify(value));
  }
}
