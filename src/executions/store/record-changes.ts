import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import type { BackingRedis } from '../../redis/backing-redis';
import { RedisAudience } from '../../redis/redis-audience';
import { RedisChannel, type RedisChannelOptions } from '../../redis/redis-channel';
import { settledWithin } from '../../core/settled-within';
import type { ExecutionRecord } from '../model/execution-record';
import { CopyRenewal, type ReadVersions } from './copy-renewal';
import { COPY_MS, RecordCopies, WRITE_MS, type VersionedRecord } from './record-copies';

/** How long a write waits for its announcement to be taken before it goes on without it. */
const ANNOUNCE_MS = 500;
/** How long a read waits for its join of the record's audience before it goes on and keeps nothing. */
const JOIN_MS = 250;
/** Ids per notice of records gone (a notice stays far under the channel's bound). */
const GONE_PER_NOTICE = 500;
/** The longest record text a notice carries (a larger one is left out: it is only a starting point). */
const MAX_TEXT_CHARS = 16 * 1024;

type Notice =
  /** A write of `id` by `writer` begins (writing `text`, unless too large), or (`end`) ended. */
  | { id: string; writer: string; end?: boolean; text?: string }
  /** These records were deleted by `writer` (expired): a change not announced as it began. */
  | { ids: string[]; writer: string };

/** Told of each record another replica changes: with the text it writes, when the notice carried it. */
export type ChangeListener = (id: string, text: string | undefined) => void;

function noticeOf(value: unknown): Notice | undefined {
  const { id, ids, writer, end, text } = (value ?? {}) as Record<string, unknown>;
  if (typeof writer !== 'string') return undefined;
  if (typeof id === 'string') {
    return { id, writer, end: end === true, text: typeof text === 'string' ? text : undefined };
  }
  if (Array.isArray(ids) && ids.every((each) => typeof each === 'string')) return { ids, writer };
  return undefined;
}

/** The writer a replica counts as under way when it joins a record's audience just after a notice. */
const TOLD_BEFORE_JOINING = 'told before joining';

const logger = new Logger('RecordChanges');
const NOTICES: RedisChannelOptions = {
  name: 'record-changes',
  maxChars: 64 * 1024,
  logger,
  what: 'record change notice',
};

/**
 * What lets a status poll on the shared store be answered from memory: every write of a record is
 * announced before it commits to the replicas that created, read or wait on that record (its audience,
 * redis-audience.ts; until the write has surely ended, nothing read of the record is kept there), and a
 * replica serves the copy it read last (record-copies.ts; renewed while it is polled from its row's
 * version, copy-renewal.ts) once every notice published before the poll arrived has reached it
 * (`BackingRedis.delivered`). A client that saw a change anywhere, from its writer's answer or from a
 * read of PostgreSQL after the commit, is served the change (or something newer) here. A replica joins
 * a record's audience as it first reads it (alongside the read); a write announced just before it
 * joined counts as under way from then on, for what is left of WRITE_MS.
 * Records deleted (expired) are announced to every replica, in batches.
 *
 * A write whose announcement Redis does not take (it is away, or this replica cannot reach it) still
 * goes on, as every write did before: its writer answers only once every copy that could be older
 * than it has stopped being served (`COPY_MS`).
 */
export class RecordChanges {
  private readonly copies = new RecordCopies();
  private renewal?: CopyRenewal;
  private writes = 0;
  private readonly changedElsewhere: ChangeListener[] = [];

  private constructor(
    private readonly redis: BackingRedis,
    /** Where records deleted are announced, to every replica. */
    private readonly everyone: RedisChannel,
    /** Where a write of a record is announced, to the replicas that read or wrote it. */
    private readonly audience: RedisAudience,
  ) {}

  /**
   * Listening before it is handed out: no copy is kept from a read a notice could have missed. The
   * audience is the executions' (shared with the wake-ups of their answers).
   */
  static async open(redis: BackingRedis, audience: RedisAudience): Promise<RecordChanges> {
    const everyone = new RedisChannel(redis, NOTICES);
    const changes = new RecordChanges(redis, everyone, audience);
    const received = (value: unknown) => changes.received(noticeOf(value));
    redis.onUnsubscribed(() => changes.copies.lost());
    redis.onResubscribed(() => changes.copies.heard());
    await audience.listen(NOTICES, received);
    await everyone.subscribe(received);
    changes.copies.heard();
    return changes;
  }

  /**
   * Record `id` was just created here: this replica joins its audience, so that it hears of the next
   * write elsewhere (its next write starts from that text). Not awaited: nobody else can write the
   * record before they learn of it, and a join that fails only costs that write a second try.
   */
  created(id: string): void {
    if (!this.audience.joined(id)) void this.audience.join(id).catch(() => undefined);
  }

  /**
   * The record as a status poll may see it: a copy when one is good, else what `load` reads (the
   * record with its version, kept as the copy).
   */
  async read(
    id: string,
    load: () => Promise<VersionedRecord | undefined>,
  ): Promise<Readonly<ExecutionRecord> | undefined> {
    const copy = this.copies.copy(id);
    // The notices sent before this poll arrived are in: the copy is still good if none was of it.
    if (copy && (await this.redis.delivered()) && this.copies.copy(id) === copy) {
      this.copies.served(id);
      return copy;
    }
    const ticket = this.copies.reading(id);
    let read: VersionedRecord | undefined;
    try {
      const joining = this.audience.joined(id) ? undefined : this.join(id);
      read = await load();
      await joining;
      return read?.record;
    } finally {
      this.copies.kept(ticket, read);
    }
  }

  /**
   * Copies served to polls are renewed from `versions` (the version each record has now) rather than
   * read again once COPY_MS has passed (copy-renewal.ts), until `close`.
   */
  renewCopies(versions: ReadVersions): void {
    this.renewal ??= new CopyRenewal(this.copies, versions, (id) => this.audience.joined(id));
    this.renewal.start();
  }

  /** Stops renewing copies (they expire). */
  close(): Promise<void> {
    return this.renewal?.stop() ?? Promise.resolve();
  }

  /** This replica, as a writer (its audience member id): its own notices are known here already. */
  private get me(): string {
    return this.audience.me;
  }

  /**
   * Joins the audience of `id`, so that its writes from now on are heard of here. One announced just
   * before counts as under way for what is left of WRITE_MS; when Redis cannot be asked, nothing read
   * of the record now is kept.
   */
  private async join(id: string): Promise<void> {
    const joined = this.audience.join(id).catch(() => 0);
    // A poll does not wait longer for Redis than for its PING (a partition): it keeps nothing instead.
    const since = await settledWithin(joined, JOIN_MS, 0);
    if (since < WRITE_MS) this.copies.begin(id, TOLD_BEFORE_JOINING, WRITE_MS - since);
  }

  /** The copy of `id` read last, unchecked (it may be out of date): never to be served. */
  lastRead(id: string): Readonly<ExecutionRecord> | undefined {
    return this.copies.copy(id);
  }

  /** Calls `listener` with each record another replica changes, as the change is heard of. */
  onChangedElsewhere(listener: ChangeListener): void {
    this.changedElsewhere.push(listener);
  }

  /**
   * Runs `write` of record `id`, announced to its audience before it commits: `write` awaits
   * `announce(text)` (the text it is about to write, for the replica that writes the record next to
   * start from) before it commits; one that commits nothing need not call it.
   */
  async write<T>(
    id: string,
    write: (announce: (text?: string) => Promise<unknown>) => Promise<T>,
  ): Promise<T> {
    const writer = `${this.me}:${++this.writes}`;
    this.copies.begin(id, writer);
    let announcing: Promise<boolean> | undefined;
    let sent = 0;
    const announce = (text?: string) => {
      if (announcing) return announcing;
      sent = performance.now();
      const carried = text !== undefined && text.length <= MAX_TEXT_CHARS ? { text } : {};
      return (announcing = this.announce({ id, writer, ...carried }));
    };
    try {
      return await write(announce);
    } finally {
      const done = performance.now();
      this.copies.end(id, writer);
      // Elsewhere a write stops counting as under way WRITE_MS after its start was heard of, so its end
      // needs no notice (one message less to every replica): by then it has committed. One that took
      // longer than half of that announces its end, and answers once Redis has taken it.
      if (announcing) {
        const slow = done - sent >= WRITE_MS / 2;
        const ended = (await announcing) && (!slow || (await this.announce({ id, writer, end: true })));
        if (!ended) await sleep(Math.max(0, done + COPY_MS - performance.now()));
      }
    }
  }

  /** These records were deleted (expired): every replica's copies of them go. */
  async gone(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    this.copies.gone(ids);
    for (let from = 0; from < ids.length; from += GONE_PER_NOTICE) {
      const notice = { ids: ids.slice(from, from + GONE_PER_NOTICE), writer: this.me };
      await this.taken(() => this.everyone.publish(notice));
    }
  }

  /**
   * Whether Redis took the notice (every member listening then has it, or will before its next poll).
   * Writing does not make a replica a member: the ones that answer or cancel a run another replica
   * runs are not told of its next writes (a later write of theirs starts from an older text and tries
   * twice). Members created, read or wait on the record.
   */
  private announce(notice: Notice & { id: string }): Promise<boolean> {
    return this.taken(() => this.audience.tell(notice.id, NOTICES.name, notice, { join: false }));
  }

  private async taken(send: () => Promise<void>): Promise<boolean> {
    // Not queued for the seconds ioredis would retry it: the write goes on without it.
    if (!this.redis.ready) return false;
    const taken = send().then(
      () => true,
      () => false,
    );
    return settledWithin(taken, ANNOUNCE_MS, false);
  }

  private received(notice: Notice | undefined): void {
    if (!notice || notice.writer.startsWith(this.me)) return;
    for (const listener of this.changedElsewhere) {
      if ('ids' in notice) for (const id of notice.ids) listener(id, undefined);
      else if (!notice.end) listener(notice.id, notice.text);
    }
    if ('ids' in notice) return this.copies.gone(notice.ids);
    if (notice.end) this.copies.end(notice.id, notice.writer);
    else this.copies.begin(notice.id, notice.writer);
  }
}
