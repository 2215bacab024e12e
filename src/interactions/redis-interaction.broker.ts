import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../db/backing-redis';
import type { PromptAnswer } from '../runtime/prompts';
import { InProcessInteractionBroker, InteractionBroker, type AnswerWaiter } from './interaction.broker';

interface Wake {
  interactionId: string;
  answer: PromptAnswer;
}

/** Bounds what a replica accepts from the channel (answers are validated, and bounded, before this). */
const MAX_MESSAGE_CHARS = 4 * 1024 * 1024;

/**
 * Wake-ups across replicas: an answer accepted on any replica is published on one Redis channel that
 * every replica subscribes to, and the replica whose workflow waits on that interaction wakes it. An
 * answer for a waiter in this process skips Redis.
 */
export class RedisInteractionBroker extends InteractionBroker {
  private static readonly logger = new Logger('RedisInteractionBroker');
  private readonly local = new InProcessInteractionBroker();

  private constructor(
    private readonly redis: BackingRedis,
    private readonly channel: string,
  ) {
    super();
  }

  /** Subscribed before it is handed out, so no answer published after start-up is missed. */
  static async create(redis: BackingRedis): Promise<RedisInteractionBroker> {
    const broker = new RedisInteractionBroker(redis, `${redis.prefix}interaction-answers`);
    await redis.subscribe(broker.channel, (message) => broker.received(message));
    return broker;
  }

  wait(interactionId: string, waiter: AnswerWaiter): void {
    this.local.wait(interactionId, waiter);
  }

  async deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    if (this.local.has(interactionId)) return this.local.deliver(interactionId, answer);
    const wake: Wake = { interactionId, answer };
    await this.redis.client.publish(this.channel, JSON.stringify(wake));
  }

  abandon(interactionId: string, reason: unknown): void {
    this.local.abandon(interactionId, reason);
  }

  get waiting(): number {
    return this.local.waiting;
  }

  private received(message: string): void {
    if (message.length > MAX_MESSAGE_CHARS) return;
    try {
      const { interactionId, answer } = JSON.parse(message) as Wake;
      if (typeof interactionId === 'string' && this.local.has(interactionId)) {
        void this.local.deliver(interactionId, answer);
      }
    } catch (err) {
      RedisInteractionBroker.logger.warn(`Ignored a malformed wake-up: ${(err as Error).message}`);
    }
  }
}
