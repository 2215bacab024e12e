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

/** Unsent wake-ups kept (beyond them, the replica waiting reads the answer from the record on reconnect). */
const MAX_UNSENT = 10_000;

const logger = new Logger('RedisInteractionBroker');

const CHANNEL: RedisChannelOptions = {
  name: 'interaction-answers',
  // Bounds what a replica accepts; answers larger than a wake-up carries are refused before they are
  // accepted (`maxAnswerChars`), so none is acknowledged and then dropped here.
  maxChars: MAX_CHARS,
  logger,
  what: 'wake-up',
};

/**
 * Wake-ups across replicas: an answer accepted on any replica is published on one Redis channel that
 * every replica subscribes to, and the replica whose workflow waits on that interaction wakes it. An
 * answer for a waiter in this process skips Redis.
 */
export class RedisInteractionBroker extends InteractionBroker {
  private readonly local = new InProcessInteractionBroker();
  /** Wake-ups Redis did not take (it was away), published again once it is back. */
  private readonly unsent = new Map<string, PromptAnswer>();

  private constructor(
    private readonly channel: RedisChannel,
    private readonly redis: BackingRedis,
  ) {
    super();
  }

  /**
   * Subscribed before it is handed out, so no answer published after start-up is missed. After Redis
   * was away, what was published meanwhile is lost: each answer recorded meanwhile is delivered from
   * the record (the answer is in PostgreSQL before it is acknowledged), and the wake-ups this replica
   * could not send are sent again.
   */
  static async create(redis: BackingRedis): Promise<RedisInteractionBroker> {
    const broker = new RedisInteractionBroker(new RedisChannel(redis, CHANNEL), redis);
    await broker.channel.subscribe((message) => broker.received(message));
    redis.onResubscribed(() => void broker.recover());
    return broker;
  }

  private async recover(): Promise<void> {
    const unsent = [...this.unsent];
    this.unsent.clear();
    for (const [interactionId, answer] of unsent) await this.publish(interactionId, answer);
    const delivered = await this.local.redeliver();
    if (delivered || unsent.length) {
      logger.log(
        `Redis is back: ${delivered} answer(s) recorded meanwhile delivered from the record, ${unsent.length} wake-up(s) sent again`,
      );
    }
  }

  /** A wake-up Redis cannot take now is kept and sent once it is back: the answer is recorded already. */
  private async publish(interactionId: string, answer: PromptAnswer): Promise<void> {
    try {
      // Not queued for the seconds ioredis would retry it: the answer is recorded, the 204 goes now.
      if (!this.redis.ready) throw new Error('Redis is not connected');
      await this.channel.publish({ interactionId, answer } satisfies Wake);
    } catch (err) {
      if (this.unsent.size < MAX_UNSENT) this.unsent.set(interactionId, answer);
      logger.warn(
        `Wake-up for interaction ${interactionId} not sent (${(err as Error).message}); sent when Redis is back`,
      );
    }
  }

  wait(interactionId: string, waiter: AnswerWaiter): void {
    this.local.wait(interactionId, waiter);
  }

  /**
   * Not held until Redis acknowledges the wake-up: the answer is recorded already, and one Redis does
   * not take is sent again (`publish`). It is sent once this turn of the event loop is over, so the
   * person's acknowledgement (the 204, written in this turn) goes out first: on a core shared with
   * the replica it wakes, the reply no longer waits for the resumed workflow (answer → 204 p50 3.1 →
   * 2.0 ms with two replicas on one core). Anything the client does after seeing it is read in a
   * later turn, so it still comes after the wake-up.
   */
  async deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    if (this.local.has(interactionId)) return this.local.deliver(interactionId, answer);
    setImmediate(() => void this.publish(interactionId, answer));
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
