import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../db/backing-redis';
import type { ExecutionEvent, ExecutionEventBody, TerminalEvent } from '../runtime/execution-event';
import { EventLog, EventLogs, type EventListener, type OpenOptions } from './event-log';
import { ExecutionEventLog, type EventLogLimits } from './execution-event-log';
import { decode, RedisEventFollower, type StreamKeys } from './redis-event-follower';

export interface RedisEventLogOptions {
  /** Events kept per execution (XADD MAXLEN ~). */
  maxEvents: number;
  /** How long a log stays after its last event, seconds. */
  retentionSeconds: number;
  /** The bounds of the local copy the writing replica serves its own subscribers from. */
  local: EventLogLimits;
}

/** XADD's refusal of an id at or below the stream's last one. */
const ALREADY_ADDED = /equal or smaller than the target stream top item/;

/** Prompts kept aside per execution, so a re-attacher can answer even once its events were trimmed. */
const MAX_PINS = 1000;

/** An event as stored: JSON, with a terminal event's result made storable if it was not. */
export function serialize(event: ExecutionEvent): string {
  try {
    return JSON.stringify(event, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  } catch {
    return JSON.stringify({ ...event, result: null, value: null, step: undefined });
  }
}

/**
 * The log of an execution this replica runs: numbered here (this replica is its only writer), served
 * to local subscribers from a local copy, and written through, in order, to a Redis Stream whose entry
 * ids are the sequence numbers, so a replica following it resumes at any `seq` with XREAD.
 */
export class RedisEventLog extends EventLog {
  private static readonly logger = new Logger('RedisEventLog');
  private readonly local: ExecutionEventLog;
  private expiresSetAt = 0;
  private failed = false;

  constructor(
    private readonly redis: BackingRedis,
    private readonly keys: StreamKeys,
    private readonly options: RedisEventLogOptions,
    afterSeq = 0,
    /** Kept to the local copy until `publish()`: nothing is written to Redis before. */
    private held = false,
  ) {
    super();
    this.local = new ExecutionEventLog(options.local);
    this.local.continueAfter(afterSeq);
  }

  append(body: ExecutionEventBody): ExecutionEvent | undefined {
    const event = this.local.append(body);
    if (event && !this.held) this.write(event);
    return event;
  }

  override publish(): void {
    if (!this.held) return;
    this.held = false;
    // The local copy replays what it kept, in order (a drop notice is no event of the stream).
    this.local.subscribe((event) => event.kind !== 'events_dropped' && this.write(event))();
  }

  subscribe(listener: EventListener, afterSeq?: number): () => void {
    return this.local.subscribe(listener, afterSeq);
  }

  get done(): Promise<TerminalEvent> {
    return this.local.done;
  }

  override get appendedSeq(): number {
    return this.local.appendedSeq;
  }

  get terminal(): TerminalEvent | undefined {
    return this.local.terminal;
  }

  dispose(): void {
    this.local.dispose();
    if (!this.held) this.send(this.redis.client.del(this.keys.events, this.keys.pins));
  }

  private write(event: ExecutionEvent): void {
    const { events, pins } = this.keys;
    const id = `${event.seq}-0`;
    const data = serialize(event);
    const client = this.redis.client;
    // One connection sends commands in order, so the stream gets the events in their order.
    this.send(client.xadd(events, 'MAXLEN', '~', this.options.maxEvents, id, 'e', data));
    const pinned = event.kind === 'interaction_required' || event.kind === 'oauth_required';
    if (pinned) {
      this.send(client.zadd(pins, event.seq, data));
      this.send(client.zremrangebyrank(pins, 0, -(MAX_PINS + 1)));
    }
    const now = Date.now();
    const ttl = this.options.retentionSeconds;
    if (pinned || this.local.terminal || now - this.expiresSetAt > (ttl * 1000) / 10) {
      this.expiresSetAt = now;
      this.send(client.expire(events, ttl));
      this.send(client.expire(pins, ttl));
    }
  }

  /**
   * Watches a write nobody awaits: the first failure is logged. ioredis sends a command again when the
   * connection dropped before its reply: an XADD that had run is then refused for its id, and that is
   * no failure (the event is there).
   */
  private send(reply: Promise<unknown>): void {
    reply.catch((err: Error) => {
      if (ALREADY_ADDED.test(err.message) || this.failed) return;
      this.failed = true;
      RedisEventLog.logger.warn(
        `${this.keys.events}: events are not reaching Redis, other replicas miss them: ${err.message}`,
      );
    });
  }
}

/** The Redis adapter of the event-log port: Streams any replica can follow. */
export class RedisEventLogs extends EventLogs {
  constructor(
    private readonly redis: BackingRedis,
    private readonly options: RedisEventLogOptions,
  ) {
    super();
  }

  open(executionId: string, options?: OpenOptions): EventLog {
    return new RedisEventLog(this.redis, this.keysOf(executionId), this.options, 0, options?.held);
  }

  override async resume(executionId: string): Promise<EventLog> {
    const keys = this.keysOf(executionId);
    const [last] = await this.redis.client.xrevrange(keys.events, '+', '-', 'COUNT', 1);
    const afterSeq = last ? Number.parseInt(last[0], 10) : 0;
    return new RedisEventLog(this.redis, keys, this.options, afterSeq);
  }

  override async readAfter(executionId: string, afterSeq: number): Promise<ExecutionEvent[]> {
    const entries = await this.redis.client.xrange(this.keysOf(executionId).events, `${afterSeq + 1}-0`, '+');
    return entries.map(decode).filter((event) => event !== undefined);
  }

  async attach(executionId: string, live: boolean): Promise<EventLog | undefined> {
    return RedisEventFollower.attach(this.redis, this.keysOf(executionId), live);
  }

  private keysOf(executionId: string): StreamKeys {
    const events = `${this.redis.prefix}events:{${executionId}}`;
    return { events, pins: `${events}:pinned` };
  }
}
