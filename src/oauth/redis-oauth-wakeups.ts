import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../db/backing-redis';
import { MemoryOAuthWakeups, OAuthWakeups } from './oauth-wakeups';
import type { FlowOutcome } from './pending-oauth-flows';

/** A wake-up is a state and an outcome message; anything larger is not ours. */
const MAX_MESSAGE_CHARS = 16 * 1024;

function outcomeOf(value: unknown): FlowOutcome | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { ok, message } = value as { ok?: unknown; message?: unknown };
  if (ok === true) return { ok: true };
  if (ok === false && typeof message === 'string') return { ok: false, message };
  return undefined;
}

/**
 * OAuth wake-ups across replicas: one Redis channel every replica subscribes to at start-up; the
 * replica whose workflow waits on the state wakes it. A flow settled in this process skips Redis.
 */
export class RedisOAuthWakeups extends OAuthWakeups {
  private static readonly logger = new Logger('RedisOAuthWakeups');
  private readonly local = new MemoryOAuthWakeups();

  private constructor(
    private readonly redis: BackingRedis,
    private readonly channel: string,
  ) {
    super();
  }

  /** Subscribed before it is handed out, so no wake-up published after start-up is missed. */
  static async create(redis: BackingRedis): Promise<RedisOAuthWakeups> {
    const wakeups = new RedisOAuthWakeups(redis, `${redis.prefix}oauth-wakeups`);
    await redis.subscribe(wakeups.channel, (message) => wakeups.received(message));
    return wakeups;
  }

  listen(state: string, onOutcome: (outcome: FlowOutcome) => void): () => void {
    return this.local.listen(state, onOutcome);
  }

  async publish(state: string, outcome: FlowOutcome): Promise<void> {
    if (this.local.deliver(state, outcome)) return;
    await this.redis.client.publish(this.channel, JSON.stringify({ state, outcome }));
  }

  private received(message: string): void {
    if (message.length > MAX_MESSAGE_CHARS) return;
    try {
      const { state, outcome } = JSON.parse(message) as { state?: unknown; outcome?: unknown };
      const checked = outcomeOf(outcome);
      if (typeof state === 'string' && checked) this.local.deliver(state, checked);
    } catch (err) {
      RedisOAuthWakeups.logger.warn(`Ignored a malformed wake-up: ${(err as Error).message}`);
    }
  }
}
