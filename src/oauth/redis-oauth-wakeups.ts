import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../redis/backing-redis';
import { RedisChannel, type RedisChannelOptions } from '../redis/redis-channel';
import { MemoryOAuthWakeups, OAuthWakeups } from './oauth-wakeups';
import type { FlowOutcome } from './pending-oauth-flows';

const CHANNEL: RedisChannelOptions = {
  name: 'oauth-wakeups',
  // A wake-up is a state and an outcome message; anything larger is not ours.
  maxChars: 16 * 1024,
  logger: new Logger('RedisOAuthWakeups'),
  what: 'wake-up',
};

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
  private readonly local = new MemoryOAuthWakeups();

  private constructor(private readonly channel: RedisChannel) {
    super();
  }

  /** Subscribed before it is handed out, so no wake-up published after start-up is missed. */
  static async create(redis: BackingRedis): Promise<RedisOAuthWakeups> {
    const wakeups = new RedisOAuthWakeups(new RedisChannel(redis, CHANNEL));
    await wakeups.channel.subscribe((message) => wakeups.received(message));
    return wakeups;
  }

  listen(state: string, onOutcome: (outcome: FlowOutcome) => void): () => void {
    return this.local.listen(state, onOutcome);
  }

  async publish(state: string, outcome: FlowOutcome): Promise<void> {
    if (this.local.deliver(state, outcome)) return;
    await this.channel.publish({ state, outcome });
  }

  private received(message: unknown): void {
    const { state, outcome } = message as { state?: unknown; outcome?: unknown };
    const checked = outcomeOf(outcome);
    if (typeof state === 'string' && checked) this.local.deliver(state, checked);
  }
}
