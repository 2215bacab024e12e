import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { Redis } from 'ioredis';
import type { BackingRedis } from '../../redis/backing-redis';
import {
  isTerminal,
  type ExecutionEvent,
  type ExecutionEventBody,
  type TerminalEvent,
} from '../../runtime/execution-event';
import { EventLog, type EventListener } from './event-log';
import { decode, runAfter, type StoredEvent } from './redis-log-entry';

export interface StreamKeys {
  /** The Stream of every event, entry id `<seq>-0`. */
  events: string;
  /**
   * The prompts alone, kept when the events around them are trimmed: a sorted set (score = seq), which
   * Redis keeps in a few hundred bytes, where a second Stream took as much as the log (~4.7 KB each).
   */
  pins: string;
}

/** How long one XREAD waits before the follower checks the log still exists. */
const BLOCK_MS = 5000;
const BATCH = 500;
/** Reads that may fail in a row (Redis restarting) before a follower gives up, a second apart. */
const MAX_FAILURES = 60;
const RETRY_MS = 1000;
const logger = new Logger('RedisEventFollower');

type Entry = [id: string, fields: string[]];

/**
 * A subscriber's connection, what each of its commands goes through (`ask`: a stop closes the
 * connection while one is under way, and lets it go to the next reader otherwise) and whether it stopped.
 */
interface Reader {
  connection: Redis;
  ask: <T>(command: Promise<T>) => Promise<T>;
  stopped: () => boolean;
}

/** A stand-in read back as the event it stands for (its bulk read from the execution's record). */
export type Restore = (event: StoredEvent) => Promise<ExecutionEvent>;
/** The prompt the execution waits on, from its record (the system of record), without its seq. */
export type PendingPrompt = () => Promise<ExecutionEventBody | undefined>;

/**
 * An execution's log as another replica sees it: read from its Redis Stream. Each subscriber has a
 * connection of its own blocked in XREAD after the last seq it got, so it gets every later event once,
 * in order (a merged run of text chunks as one event, from the chunk after that seq); events trimmed
 * before it resumed, or too large to keep, are announced with one `events_dropped` (prompts are kept
 * aside and still replayed). This replica does not run the execution, so it never appends.
 *
 * A log Redis lost (restarted empty) while the execution waits for a person holds nothing, though the
 * prompt was shown: each subscriber is then shown that prompt again, read from the record, numbered
 * as the last event it had (it answers it, or re-attaches and is shown it again), before what follows.
 */
export class RedisEventFollower extends EventLog {
  private final: TerminalEvent | undefined;
  private readonly settled: Promise<TerminalEvent>;
  private resolveSettled!: (event: TerminalEvent) => void;
  private watching = false;
  private readonly stops = new Set<() => void>();
  /** The prompt waited on when the log was found empty (Redis lost it), shown to each subscriber first. */
  private lostPrompt?: ExecutionEventBody;

  private constructor(
    private readonly redis: BackingRedis,
    private readonly keys: StreamKeys,
    /** The seq of the last event when attached. */
    private readonly lastSeq: number,
    private readonly restore: Restore,
  ) {
    super();
    this.settled = new Promise((resolve) => (this.resolveSettled = resolve));
  }

  /**
   * The log of an execution another replica writes; undefined when Redis has none for it, unless it
   * is `live` (still running: its first event may not be written yet).
   */
  static async attach(
    redis: BackingRedis,
    keys: StreamKeys,
    live: boolean,
    restore: Restore,
    pending?: PendingPrompt,
  ): Promise<RedisEventFollower | undefined> {
    const [last] = await redis.client.xrevrange(keys.events, '+', '-', 'COUNT', 1);
    if (!last && !live) return undefined;
    const event = last && decode(last);
    const follower = new RedisEventFollower(redis, keys, event ? event.seq : 0, restore);
    // A waiting execution has shown its prompt: an empty log is one Redis lost.
    if (!last && pending) follower.lostPrompt = await pending();
    if (event && isTerminal(event)) follower.end((await restore(event)) as TerminalEvent);
    return follower;
  }

  append(): undefined {
    return undefined;
  }

  get done(): Promise<TerminalEvent> {
    if (!this.final && !this.watching) {
      this.watching = true;
      this.subscribe(() => undefined, Math.max(0, this.lastSeq - 1));
    }
    return this.settled;
  }

  get terminal(): TerminalEvent | undefined {
    return this.final;
  }

  subscribe(listener: EventListener, afterSeq = 0): () => void {
    if (this.final && this.final.seq <= afterSeq) return () => undefined;
    const connection = this.redis.reader();
    let stopped = false;
    let asking = 0;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      this.stops.delete(stop);
      // A read under way would block for up to BLOCK_MS: closing its connection ends it now.
      if (asking > 0) this.redis.release(connection);
    };
    const ask = async <T>(command: Promise<T>): Promise<T> => {
      asking++;
      try {
        return await command;
      } finally {
        asking--;
      }
    };
    this.stops.add(stop);
    this.follow({ connection, ask, stopped: () => stopped }, listener, afterSeq)
      .catch((err: Error) => logger.warn(`${this.keys.events}: following stopped: ${err.message}`))
      .finally(() => {
        stop();
        // Nothing of this follower's is under way on it any more: the next reader may use it.
        this.redis.returned(connection);
      });
    return stop;
  }

  dispose(): void {
    for (const stop of [...this.stops]) stop();
  }

  private async follow(reader: Reader, listener: EventListener, afterSeq: number): Promise<void> {
    const { connection, ask, stopped } = reader;
    let last = afterSeq;
    let seen = this.lastSeq > 0;
    let failures = 0;
    const shown = this.lostPrompt;
    if (shown) {
      await Promise.resolve();
      if (!stopped()) listener({ ...shown, seq: afterSeq } as ExecutionEvent);
    }
    try {
      while (!stopped()) {
        let reply: [stream: string, entries: Entry[]][] | null;
        try {
          // A connection lost under this read is opened again and the read sent again by ioredis, so
          // it still asks for what follows `last`.
          reply = await ask(
            connection.xread('COUNT', BATCH, 'BLOCK', BLOCK_MS, 'STREAMS', this.keys.events, `${last}-0`),
          );
          failures = 0;
        } catch (err) {
          // Redis stayed away longer than a command waits (maxRetriesPerRequest): read again after `last`.
          // A connection closed for good (BackingRedis closing) ends the follower at once.
          if (stopped() || connection.status === 'end' || ++failures > MAX_FAILURES) throw err;
          await sleep(RETRY_MS);
          continue;
        }
        if (reply === null) {
          // Nothing new for a while: a log that expired or was deleted has nothing more to give.
          if (seen && (await ask(connection.exists(this.keys.events))) === 0) return;
          continue;
        }
        seen = true;
        const [[, entries]] = reply;
        const missed = new Missed(listener);
        for (const entry of entries) {
          const stored = decode(entry);
          if (!stored || stored.seq <= last || stopped()) continue;
          const first = stored.from ?? stored.seq;
          if (first > last + 1) await this.replayTrimmed(reader, missed, last, first);
          if (stored.kind === 'events_dropped') {
            missed.add(stored.count, stored.seq);
            last = stored.seq;
            continue;
          }
          missed.tell();
          const event = runAfter(await this.restore(stored), last);
          last = stored.seq;
          // The prompt shown again from the record, written after all (it raced the attach): once is enough.
          if (isSameWait(event, shown)) continue;
          listener(event);
          if (isTerminal(event)) {
            this.end(event);
            return;
          }
        }
        missed.tell();
      }
    } catch (err) {
      // A stop (or BackingRedis closing) closes the connection under a pending read; anything else
      // ends this follower too.
      if (!stopped() && connection.status !== 'end') throw err;
    }
  }

  /** Events between `last` and `next` were trimmed: count them, and replay the prompts among them. */
  private async replayTrimmed(
    { connection, ask }: Reader,
    missed: Missed,
    last: number,
    next: number,
  ): Promise<void> {
    const range = await ask(connection.zrangebyscore(this.keys.pins, last + 1, next - 1, 'WITHSCORES'));
    const pins: ExecutionEvent[] = [];
    for (let i = 0; i < range.length; i += 2) {
      const pin = decode([`${range[i + 1]}-0`, ['e', range[i]]]);
      if (pin) pins.push(await this.restore(pin));
    }
    missed.add(next - last - 1 - pins.length, next - 1);
    if (pins.length === 0) return;
    missed.tell();
    for (const pin of pins) missed.listener(pin);
  }

  private end(event: TerminalEvent): void {
    this.final ??= event;
    this.resolveSettled(this.final);
  }
}

function isSameWait(event: ExecutionEvent, shown: ExecutionEventBody | undefined): boolean {
  if (shown?.kind === 'oauth_required') return event.kind === 'oauth_required' && event.state === shown.state;
  return (
    shown?.kind === 'interaction_required' &&
    event.kind === 'interaction_required' &&
    event.interactionId === shown.interactionId
  );
}

/** Events a follower could not have, told as one `events_dropped` before the next it gets. */
class Missed {
  private count = 0;
  private through = 0;

  constructor(readonly listener: EventListener) {}

  add(count: number, through: number): void {
    this.count += count;
    this.through = through;
  }

  tell(): void {
    if (this.count > 0) this.listener({ kind: 'events_dropped', count: this.count, seq: this.through });
    this.count = 0;
  }
}
