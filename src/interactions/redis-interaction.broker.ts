import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../redis/backing-redis';
import { RedisChannel, type RedisChannelOptions } from '../redis/redis-channel';
import type { PromptAnswer } from '../runtime/prompts';
import { InProcessInteractionBroker, InteractionBroker, type AnswerWaiter } from './interaction.broker';

interface Wake {
  interactionId: string;
  answer: PromptAnswer;
}

const MAX_CHARS = 4 * 1024 * 1024;
/** Room for the rest of a wake-up: `{"interactionId": <id>, "answer": …}`. */
const ENVELOPE_CHARS = 256;

const CHANNEL: RedisChannelOptions = {
  name: 'interaction-answers',
  // Bounds what a replica accepts; answers larger than a wake-up carries are refused before they are
  // accepted (`maxAnswerChars`), so none is acknowledged and then dropped here.
  maxChars: MAX_CHARS,
  logger: new Logger('RedisInteractionBroker'),
  what: 'wake-up',
};

/**
 * Wake-ups across replicas: an answer accepted on any replica is published on one Redis channel that
 * every replica subscribes to, and the replica whose workflow waits on that interaction wakes it. An
 * answer for a waiter in this process skips Redis.
 */
export class RedisInteractionBroker extends InteractionBroker {
  private readonly local = new InProcessInteractionBroker();

  private constructor(private readonly channel: RedisChannel) {
    super();
  }

  /** Subscribed before it is handed out, so no answer published after start-up is missed. */
  static async create(redis: BackingRedis): Promise<RedisInteractionBroker> {
    const broker = new RedisInteractionBroker(new RedisChannel(redis, CHANNEL));
    await broker.channel.subscribe((message) => broker.received(message));
    return broker;
  }

  wait(interactionId: string, waiter: AnswerWaiter): void {
    this.local.wait(interactionId, waiter);
  }

  async deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    if (this.local.has(interactionId)) return this.local.deliver(interactionId, answer);
    await this.channel.publish({ interactionId, answer } satisfies Wake);
  }

  abandon(interactionId: string, reason: unknown): void {
    this.local.abandon(interactionId, reason);
  }

  get waiting(): number {
    return this.local.waiting;
  }

  override get maxAnswerChars(): number {
    return MAX_CHARS - ENVELOPE_CHARS;
  }

  private received(message: unknown): void {
    const { interactionId, answer } = message as Wake;
    if (typeof interactionId === 'string' && this.local.has(interactionId)) {
      void this.local.deliver(interactionId, answer);
    }
  }
}
