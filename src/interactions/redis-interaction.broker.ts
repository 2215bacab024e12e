import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../redis/backing-redis';
import { setTimeout as sleep } from 'node:timers/promises';
import { settledWithin } from '../core/settled-within';
import { RedisAudience } from '../redis/redis-audience';
import type { RedisChannelOptions } from '../redis/redis-channel';
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
/** How often a waiter that could not join its execution's audience tries again. */
const JOIN_RETRY_MS = 1000;
/** A join answered later than this may have come after its prompt was answered (see `wait`). */
const SLOW_JOIN_MS = 250;

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
 * Wake-ups across replicas: an answer accepted on any replica is sent to the replicas that wait on the
 * execution it answers (its audience in Redis, redis-audience.ts), and the one whose workflow waits on
 * that interaction wakes it. A replica joins an execution's audience as its workflow starts waiting
 * there (`wait`), so the others are not woken by it. An answer for a waiter in this process skips Redis.
 */
export class RedisInteractionBroker extends InteractionBroker {
  private readonly local = new InProcessInteractionBroker();
  /** Wake-ups Redis did not take (it was away), by interaction, published again once it is back. */
  private readonly unsent = new Map<string, { executionId: string; answer: PromptAnswer }>();

  private constructor(
    private readonly audience: RedisAudience,
    private readonly redis: BackingRedis,
  ) {
    super();
  }

  /**
   * Listening before it is handed out, on the executions' audiences (shared with their records' change
   * notices: a replica that writes an execution's record is woken by its answers too). After Redis was away, what was published meanwhile is lost:
   * each answer recorded meanwhile is delivered from the record (the answer is in PostgreSQL before it
   * is acknowledged), once every waiter here has joined its execution's audience again, and the
   * wake-ups this replica could not send are sent again.
   */
  static async create(redis: BackingRedis, audience: RedisAudience): Promise<RedisInteractionBroker> {
    const broker = new RedisInteractionBroker(audience, redis);
    await audience.listen(CHANNEL, (value) => broker.received(value));
    redis.onResubscribed(() => void broker.recover());
    redis.onReconnected(() => void broker.recover());
    return broker;
  }

  private async recover(): Promise<void> {
    const unsent = [...this.unsent];
    this.unsent.clear();
    for (const [interactionId, { executionId, answer }] of unsent) {
      await this.publish(executionId, interactionId, answer);
    }
    await Promise.all([...this.local.executions()].map((executionId) => this.joined(executionId)));
    const delivered = await this.local.redeliver();
    if (delivered || unsent.length) {
      logger.log(
        `Redis is back: ${delivered} answer(s) recorded meanwhile delivered from the record, ${unsent.length} wake-up(s) sent again`,
      );
    }
  }

  /** A wake-up Redis cannot take now is kept and sent once it is back: the answer is recorded already. */
  private async publish(executionId: string, interactionId: string, answer: PromptAnswer): Promise<void> {
    try {
      // Not queued for the seconds ioredis would retry it: the answer is recorded, the 204 goes now.
      if (!this.redis.ready) throw new Error('Redis is not connected');
      const wake: Wake = { interactionId, answer };
      await this.audience.tell(executionId, CHANNEL.name, wake, { join: false });
    } catch (err) {
      if (this.unsent.size < MAX_UNSENT) this.unsent.set(interactionId, { executionId, answer });
      logger.warn(
        `Wake-up for interaction ${interactionId} not sent (${(err as Error).message}); sent when Redis is back`,
      );
    }
  }

  /**
   * Resolves once this replica is in the execution's audience. A prompt's record is written after this
   * is asked for, on the same connection, and its write waits up to half a second for Redis: a join
   * answered within `SLOW_JOIN_MS` was in place before the prompt could be answered. Past that (Redis
   * slow, away or partitioned) it resolves anyway, and the wait joins again every second until Redis
   * takes it, then looks at the record for an answer accepted meanwhile.
   */
  async wait(interactionId: string, waiter: AnswerWaiter): Promise<void> {
    void this.local.wait(interactionId, waiter);
    if (this.audience.joined(waiter.executionId)) return;
    const joined = await settledWithin(this.joined(waiter.executionId), SLOW_JOIN_MS, false);
    if (!joined) void this.joinLater(interactionId, waiter);
  }

  private joined(executionId: string): Promise<boolean> {
    return this.audience.join(executionId).then(
      () => true,
      () => false,
    );
  }

  private async joinLater(interactionId: string, waiter: AnswerWaiter): Promise<void> {
    const { executionId } = waiter;
    do {
      await sleep(JOIN_RETRY_MS);
      if (this.local.waiterOf(interactionId) !== waiter) return;
    } while (!this.audience.joined(executionId) && !(await this.joined(executionId)));
    await this.fromRecord(interactionId, waiter);
  }

  /** Delivers the answer the record holds, if the wait still goes on and it was answered. */
  private async fromRecord(interactionId: string, waiter: AnswerWaiter): Promise<void> {
    const answer = await waiter.recorded?.().catch(() => undefined);
    if (answer && this.local.waiterOf(interactionId) === waiter) {
      await this.local.deliver(waiter.executionId, interactionId, answer);
    }
  }

  /**
   * Not held until Redis acknowledges the wake-up: the answer is recorded already, and one Redis does
   * not take is sent again (`publish`). It is sent once this turn of the event loop is over, so the
   * person's acknowledgement (the 204, written in this turn) goes out first: on a core shared with
   * the replica it wakes, the reply no longer waits for the resumed workflow (answer → 204 p50 3.1 →
   * 2.0 ms with two replicas on one core). Anything the client does after seeing it is read in a
   * later turn, so it still comes after the wake-up.
   */
  async deliver(executionId: string, interactionId: string, answer: PromptAnswer): Promise<void> {
    if (this.local.has(interactionId)) return this.local.deliver(executionId, interactionId, answer);
    setImmediate(() => void this.publish(executionId, interactionId, answer));
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
    if (typeof interactionId === 'string') this.local.wake(interactionId, answer);
  }
}
