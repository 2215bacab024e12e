import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../../redis/backing-redis';
import type { ExecutionEvent, ExecutionEventBody, TerminalEvent } from '../../runtime/execution-event';
import type { SheddableLog } from './event-log-budget';
import { EventLog, type EventListener } from './event-log';
import {
  ExecutionEventLog,
  segmentCharsOf,
  type EventLogLimits,
  type MergedRun,
} from './execution-event-log';
import type { StreamKeys } from './redis-event-follower';
import { isPrompt, serialize, standIn, type RecordReader, type StoredEvent } from './redis-log-entry';
import { StreamWindow } from './stream-window';
import { COMPACT_UP_TO_BYTES, compactStream } from './stream-compaction';
import { LogWrites } from './log-writes';

export interface RedisEventLogOptions {
  /** Entries kept per execution. */
  maxEvents: number;
  /** How long a log stays after its last event, seconds. */
  retentionSeconds: number;
  /** The bounds of the local copy the writing replica serves its own subscribers from. */
  local: EventLogLimits;
  /**
   * The bounds of what this replica keeps in Redis: bytes per execution (also the most one event
   * may take there) and, through the budget, of all the logs it writes together.
   */
  shared: EventLogLimits;
  /** Where an event too large for the log is read from: the execution's record. */
  records?: RecordReader;
  /** How long the text chunks of a long log are gathered before they go out as one entry (ms). */
  mergeMs?: number;
}

/** XADD's refusal of an id at or below the stream's last one. */
const ALREADY_ADDED = /equal or smaller than the target stream top item/;

/** Prompts kept aside per execution, so a re-attacher can answer even once its events were trimmed. */
const MAX_PINS = 1000;
/** What Redis spends on an entry besides its JSON (id, field name, listpack headers), roughly. */
export const ENTRY_BYTES = 16;
/** Past its bound a log is trimmed to this share of it, so a full log is not trimmed on every event. */
const TRIM_TO = 0.9;
/** Short logs are written event for event; past this many entries, text chunks are merged. */
const MERGE_PAST = 128;
const MERGE_MS = 50;

/**
 * The log of an execution this replica runs: numbered here (this replica is its only writer), served
 * to local subscribers from a local copy, and written through, in order, to a Redis Stream whose entry
 * ids are the sequence numbers, so a replica following it resumes at any `seq` with XREAD. What the
 * Stream holds is bounded as the local copy is: text chunks of a long log merged, an event larger
 * than the per-execution bound kept as a stand-in, the oldest entries trimmed past the bound.
 */
export class RedisEventLog extends EventLog implements SheddableLog {
  private static readonly logger = new Logger('RedisEventLog');
  private readonly local: ExecutionEventLog;
  private readonly window = new StreamWindow();
  /** Text chunks gathered into one entry, written when the next event comes or `mergeMs` passed. */
  private run?: MergedRun;
  private runTimer?: NodeJS.Timeout;
  private readonly segmentChars: number;
  private expiresSetAt = 0;
  /**
   * Whether prompts may be kept aside (the sorted set), whose expiry then follows the Stream's: once
   * this log trimmed one away, and from the start for a log taken over. Until then the set does not
   * exist, and its expiry would be a command per write for nothing.
   */
  private pinsKept: boolean;
  private failed = false;
  /** This turn's commands, sent once the turn of the event loop is over (`turnWrites`). */
  private turn?: LogWrites;

  constructor(
    private readonly redis: BackingRedis,
    private readonly keys: StreamKeys,
    private readonly options: RedisEventLogOptions,
    afterSeq = 0,
    /** Kept to the local copy until `publish()`: nothing is written to Redis before. */
    private held = false,
  ) {
    super();
    this.pinsKept = afterSeq > 0;
    this.local = new ExecutionEventLog(options.local);
    this.local.continueAfter(afterSeq);
    this.segmentChars = segmentCharsOf(options.shared.maxBytes);
  }

  append(body: ExecutionEventBody): ExecutionEvent | undefined {
    const event = this.local.append(body);
    if (event && !this.held) this.write(event);
    return event;
  }

  /**
   * What it kept goes out in one pipeline (a run made durable late: everything before that point), sent
   * at once rather than at the turn's end: before the record is written, so whoever finds the record can
   * follow the log from the start.
   */
  override publish(): void {
    if (!this.held) return;
    this.held = false;
    this.local.replayKept((event, run) => this.write(event, run));
    this.sendTurn();
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

  /** Bytes its Stream holds (an estimate). */
  get keptBytes(): number {
    return this.window.bytes;
  }

  /** Entries already in the Stream (a log taken over), oldest first: counted against the bounds. */
  seed(seq: number, bytes: number, pin?: string): void {
    this.window.push(seq, bytes, pin);
    this.options.shared.budget?.charge(this, bytes);
  }

  shed(bytes: number): number {
    return this.trim(Math.max(0, this.window.bytes - bytes), Number.POSITIVE_INFINITY);
  }

  dispose(): void {
    this.local.dispose();
    this.options.shared.budget?.release(this);
    this.window.clear();
    this.run = undefined;
    clearTimeout(this.runTimer);
    // After what this turn wrote, which would otherwise make the Stream again.
    if (!this.held) this.turnWrites().del(this.keys.events, this.keys.pins);
  }

  private write(event: ExecutionEvent, merged?: MergedRun): void {
    if (merged) {
      this.flushRun();
      return this.add(runEvent(merged));
    }
    const text = event.kind === 'output' && typeof event.value === 'string' ? event.value : undefined;
    if (text !== undefined && text.length <= this.segmentChars && this.window.count >= MERGE_PAST) {
      return this.gather(event.seq, text);
    }
    this.flushRun();
    this.add(event);
  }

  private gather(seq: number, text: string): void {
    const run = this.run;
    if (run && run.value.length + text.length <= this.segmentChars) {
      run.value += text;
      run.seq = seq;
      run.lengths.push(text.length);
      return;
    }
    this.flushRun();
    this.run = { value: text, seq, from: seq, lengths: [text.length] };
    this.runTimer = setTimeout(() => this.flushRun(), this.options.mergeMs ?? MERGE_MS);
    this.runTimer.unref();
  }

  private flushRun(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    clearTimeout(this.runTimer);
    this.add(runEvent(run));
  }

  /** Writes one entry: its commands go with this turn's (`turnWrites`). */
  private add(event: StoredEvent): void {
    const { events, pins } = this.keys;
    const { shared, maxEvents, retentionSeconds: ttl } = this.options;
    let data = serialize(event);
    let bytes = Buffer.byteLength(data) + ENTRY_BYTES;
    // An OAuth wait is never left out: it is small, and without it nobody could authorize.
    if (bytes > shared.maxBytes && event.kind !== 'oauth_required') {
      data = serialize(standIn(event));
      bytes = Buffer.byteLength(data) + ENTRY_BYTES;
    }
    // One connection sends commands in order, so the stream gets the events in their order.
    const commands = this.turnWrites();
    commands.xadd(events, `${event.seq}-0`, 'e', data);
    const pinned = isPrompt(event);
    const now = Date.now();
    if (pinned || this.local.terminal || now - this.expiresSetAt > (ttl * 1000) / 10) {
      this.expiresSetAt = now;
      commands.expire(events, ttl);
      if (this.pinsKept) commands.expire(pins, ttl);
    }
    // A prompt is kept aside (the sorted set) only once a trim drops it from the Stream.
    this.window.push(event.seq, bytes, pinned ? data : undefined);
    shared.budget?.charge(this, bytes);
    if (this.window.bytes > shared.maxBytes || this.window.count > maxEvents) {
      this.trim(Math.floor(shared.maxBytes * TRIM_TO), Math.floor(maxEvents * TRIM_TO));
    }
    // A prompt is where a run waits, often long: its Stream then holds no slack (stream-compaction.ts).
    if (pinned && this.window.bytes <= COMPACT_UP_TO_BYTES) compactStream(commands, this.redis, events);
  }

  /**
   * Where this turn's commands go, sent together once the turn of the event loop is over (log-writes.ts):
   * a replica following the log gets a turn's events in one reply, as a resumed workflow writes them
   * (an answer's `interaction_resolved`, then what it streams), not the first alone and the rest a
   * read later; and this replica writes them in one go.
   */
  private turnWrites(): LogWrites {
    if (!this.turn) {
      this.turn = new LogWrites();
      setImmediate(() => this.sendTurn());
    }
    return this.turn;
  }

  /** Sends this turn's commands, if it has any left to send (`publish` sends them before the turn ends). */
  private sendTurn(): void {
    const turn = this.turn;
    this.turn = undefined;
    if (turn) this.exec(turn);
  }

  /** Trims the oldest entries (never the last) to at most `bytes` and `count`; returns the bytes freed. */
  private trim(bytes: number, count: number): number {
    const before = this.window.bytes;
    const prompts: (string | number)[] = [];
    const oldest = this.window.dropUntil(bytes, count, (seq, json) => prompts.push(seq, json));
    if (oldest === undefined) return 0;
    const commands = this.turnWrites();
    const { pins, events } = this.keys;
    if (prompts.length > 0) {
      this.pinsKept = true;
      // Before the trim: a follower that finds the gap finds the prompts in it.
      commands.zadd(pins, ...prompts);
      commands.zremrangebyrank(pins, 0, -(MAX_PINS + 1));
      commands.expire(pins, this.options.retentionSeconds);
    }
    // Exact, not `~`: Redis would otherwise keep whole nodes of entries past the bound.
    commands.xtrim(events, 'MINID', `${oldest}-0`);
    const freed = before - this.window.bytes;
    this.options.shared.budget?.credit(this, freed);
    return freed;
  }

  /** Sends a pipeline nobody awaits; a command it refused counts as a failed write. */
  private exec(writes: LogWrites): void {
    this.send(
      writes
        .on(this.redis.client)
        .exec()
        .then((replies) => {
          const refused = replies?.find(([err]) => err);
          if (refused) throw refused[0] as Error;
        }),
    );
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

/** A run of one chunk is that chunk; longer ones say which chunks they hold. */
function runEvent({ value, seq, from, lengths }: MergedRun): StoredEvent {
  return lengths.length > 1 ? { kind: 'output', value, seq, from, lengths } : { kind: 'output', value, seq };
}
