import type { Redis } from 'ioredis';
import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { BackingRedis } from '../redis/backing-redis';

/** The SDK's name for a session's standalone (GET) stream; its other streams are named by UUIDs. */
export const STANDALONE_STREAM = '_GET_stream';
/** Messages kept per stream (approximately: Redis trims whole nodes); older ones are dropped. */
const KEPT = 500;
/** How long a stream is kept once it carries its call's answer: long enough for a client to resume. */
const ANSWERED_SECONDS = 300;

const STREAM_ID = /^(?:_GET_stream|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
const ENTRY_ID = /^\d{1,20}-\d{1,20}$/;

/** A stored message as `[event id, message]`; the SDK's priming event is an empty object. */
export type StoredMessage = [eventId: string, message: JSONRPCMessage];
type Entry = [id: string, fields: string[]];

/** `<stream id>_<entry id>`, or undefined for anything else a client may put in `Last-Event-ID`. */
export function parseEventId(eventId: string): { streamId: string; entry: string } | undefined {
  const at = eventId.lastIndexOf('_');
  const streamId = eventId.slice(0, at);
  const entry = eventId.slice(at + 1);
  return at > 0 && STREAM_ID.test(streamId) && ENTRY_ID.test(entry) ? { streamId, entry } : undefined;
}

/**
 * The SDK's resumability port for one session, in Redis (replicas): every message sent on the
 * session's SSE streams, in one Redis Stream per SSE stream under the session's own keys, so any
 * replica replays what a client missed. An event id names a stream of this session only: another
 * session's id (or a forged one) finds nothing here. Each stream keeps its last ~500 messages and
 * expires `ttlSeconds` after its last one (5 minutes after its call's answer).
 */
export class RedisEventStore implements EventStore {
  constructor(
    readonly redis: BackingRedis,
    readonly sessionId: string,
    private readonly ttlSeconds: number,
  ) {}

  private key(streamId: string): string {
    return `${this.redis.prefix}mcp:events:${this.sessionId}:${streamId}`;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const key = this.key(streamId);
    const replies = await this.redis.client
      .multi()
      .xadd(key, 'MAXLEN', '~', KEPT, '*', 'm', JSON.stringify(message))
      .expire(
        key,
        'result' in message || 'error' in message
          ? Math.min(ANSWERED_SECONDS, this.ttlSeconds)
          : this.ttlSeconds,
      )
      .exec();
    const [error, entry] = replies?.[0] ?? [new Error('Redis did not store the MCP event')];
    if (error) throw error;
    return `${streamId}_${String(entry)}`;
  }

  /** The stream `eventId` belongs to, when it is one of this session's stored events. */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    const parsed = parseEventId(eventId);
    if (!parsed) return undefined;
    const found = await this.redis.client.xrange(this.key(parsed.streamId), parsed.entry, parsed.entry);
    return found.length > 0 ? parsed.streamId : undefined;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const parsed = parseEventId(lastEventId);
    if (!parsed) return '';
    const entries = await this.redis.client.xrange(this.key(parsed.streamId), `(${parsed.entry}`, '+');
    for (const [eventId, message] of this.decode(parsed.streamId, entries)) await send(eventId, message);
    return parsed.streamId;
  }

  /**
   * The messages of `streamId` after `entry` (exclusive) and the entry to read after next, waiting up
   * to `blockMs` for some on the blocking `connection`: null when none came, 'gone' when the stream
   * expired.
   */
  async next(
    connection: Redis,
    streamId: string,
    entry: string,
    blockMs: number,
  ): Promise<{ messages: StoredMessage[]; last: string } | null | 'gone'> {
    const key = this.key(streamId);
    const reply = (await connection.xread('COUNT', 100, 'BLOCK', blockMs, 'STREAMS', key, entry)) as
      [string, Entry[]][] | null;
    if (reply !== null) {
      const entries = reply[0][1];
      return { messages: this.decode(streamId, entries), last: entries[entries.length - 1]?.[0] ?? entry };
    }
    return (await connection.exists(key)) === 0 ? 'gone' : null;
  }

  private decode(streamId: string, entries: Entry[]): StoredMessage[] {
    const messages: StoredMessage[] = [];
    for (const [entry, fields] of entries) {
      const message = JSON.parse(fields[fields.indexOf('m') + 1] ?? '{}') as JSONRPCMessage;
      // The SDK's priming event (an empty message) only gave the client an id to resume from.
      if ('jsonrpc' in message) messages.push([`${streamId}_${entry}`, message]);
    }
    return messages;
  }
}
