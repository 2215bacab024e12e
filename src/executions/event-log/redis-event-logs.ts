import type { BackingRedis } from '../../redis/backing-redis';
import type { ExecutionEvent } from '../../runtime/execution-event';
import { EventLog, EventLogs, type OpenOptions } from './event-log';
import { RedisEventFollower, type StreamKeys } from './redis-event-follower';
import { ENTRY_BYTES, RedisEventLog, type RedisEventLogOptions } from './redis-event-log';
import { chunksOf, decode, isPrompt, pendingPrompt, restore } from './redis-log-entry';

export type { RedisEventLogOptions } from './redis-event-log';

/** Stream entries read at once when a log taken over is measured. */
const PAGE = 500;

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

  /**
   * Goes on after the last entry there (or after `reachedSeq`, when Redis lost the entries up to it),
   * counting what the Stream holds against this replica's bounds.
   */
  override async resume(executionId: string, reachedSeq = 0): Promise<EventLog> {
    const keys = this.keysOf(executionId);
    const entries: [seq: number, bytes: number, pin?: string][] = [];
    for (let start = '-'; ;) {
      const page = await this.redis.client.xrange(keys.events, start, '+', 'COUNT', PAGE);
      for (const entry of page) {
        const json = String(entry[1][1]);
        const stored = decode(entry);
        const pin = stored && isPrompt(stored) ? json : undefined;
        entries.push([Number.parseInt(entry[0], 10), Buffer.byteLength(json) + ENTRY_BYTES, pin]);
      }
      if (page.length < PAGE) break;
      start = `(${page[page.length - 1][0]}`;
    }
    const afterSeq = Math.max(entries.length > 0 ? entries[entries.length - 1][0] : 0, reachedSeq);
    const log = new RedisEventLog(this.redis, keys, this.options, afterSeq);
    for (const [seq, bytes, pin] of entries) log.seed(seq, bytes, pin);
    return log;
  }

  override async readAfter(executionId: string, afterSeq: number): Promise<ExecutionEvent[]> {
    const entries = await this.redis.client.xrange(this.keysOf(executionId).events, `${afterSeq + 1}-0`, '+');
    const events: ExecutionEvent[] = [];
    for (const entry of entries) {
      const stored = decode(entry);
      if (!stored) continue;
      for (const event of chunksOf(await restore(stored, executionId, this.options.records))) {
        if (event.seq > afterSeq) events.push(event);
      }
    }
    return events;
  }

  async attach(executionId: string, live: boolean): Promise<EventLog | undefined> {
    const records = this.options.records;
    return RedisEventFollower.attach(
      this.redis,
      this.keysOf(executionId),
      live,
      (event) => restore(event, executionId, records),
      () => pendingPrompt(executionId, records),
    );
  }

  private keysOf(executionId: string): StreamKeys {
    const events = `${this.redis.prefix}events:{${executionId}}`;
    return { events, pins: `${events}:pinned` };
  }
}
