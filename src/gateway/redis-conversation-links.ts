import { createHash } from 'node:crypto';
import type { BackingRedis, LuaScript } from '../redis/backing-redis';
import {
  ConversationLinks,
  LINK_TTL_MS,
  type ConversationLink,
  type LinkProgress,
} from './conversation-links';

/** Writes the fields (ARGV[3..]) only while the link still names the execution ARGV[1]. */
const UPDATE: LuaScript = {
  name: 'conversationLinkUpdate',
  keys: 1,
  lua: `
if redis.call('HGET', KEYS[1], 'executionId') ~= ARGV[1] then return 0 end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`,
};

/** Writes the link (ARGV[2..], field and value pairs) unless the key holds one. */
const RESTORE: LuaScript = {
  name: 'conversationLinkRestore',
  keys: 1,
  lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
};

/** Removes the link while it still names the execution ARGV[1]. */
const REMOVE: LuaScript = {
  name: 'conversationLinkRemove',
  keys: 1,
  lua: `
if redis.call('HGET', KEYS[1], 'executionId') ~= ARGV[1] then return 0 end
return redis.call('DEL', KEYS[1])`,
};

/**
 * Conversation links in Redis, for replicas. Redis rather than Postgres: a link is only of use while
 * its run lives, and a replica taking the run over follows it through the Redis event log anyway, so
 * the link adds no new dependency; it is written at each prompt shown (a hash field, a key TTL), which
 * Redis does for next to nothing, and it expires on its own when nobody removes it.
 */
export class RedisConversationLinks extends ConversationLinks {
  readonly shared = true;

  constructor(private readonly redis: BackingRedis) {
    super();
  }

  async get(userId: string, conversationId: string): Promise<ConversationLink | undefined> {
    const fields = await this.redis.client.hgetall(this.key(userId, conversationId));
    if (!fields.executionId) return undefined;
    return {
      executionId: fields.executionId,
      parentId: fields.parentId,
      schema: fields.schema as ConversationLink['schema'],
      delivered: Number(fields.delivered) || 0,
      attachedAt: Number(fields.attachedAt) || 0,
    };
  }

  async set(userId: string, conversationId: string, link: ConversationLink): Promise<void> {
    const k = this.key(userId, conversationId);
    await this.redis.client
      .multi()
      .del(k)
      .hset(k, { ...link })
      .pexpire(k, LINK_TTL_MS)
      .exec();
  }

  async update(
    userId: string,
    conversationId: string,
    executionId: string,
    progress: LinkProgress,
  ): Promise<void> {
    const fields = Object.entries(progress).flatMap(([f, v]) => [f, String(v)]);
    const k = this.key(userId, conversationId);
    await this.redis.runScript(UPDATE, k, executionId, LINK_TTL_MS, ...fields);
  }

  async remove(userId: string, conversationId: string, executionId: string): Promise<void> {
    await this.redis.runScript(REMOVE, this.key(userId, conversationId), executionId);
  }

  async restore(userId: string, conversationId: string, link: ConversationLink): Promise<boolean> {
    const fields = Object.entries(link).flatMap(([f, v]) => [f, String(v)]);
    const k = this.key(userId, conversationId);
    return (await this.redis.runScript(RESTORE, k, LINK_TTL_MS, ...fields)) === 1;
  }

  /** Redis keeps nothing on disk here: back after a lost connection, it may have restarted empty. */
  onReset(listener: () => void): void {
    this.redis.onReconnected(listener);
  }

  /** The conversation id is the client's: hashed, so a key stays short whatever it sends. */
  private key(userId: string, conversationId: string): string {
    const hash = createHash('sha256').update(`${userId}\u0000${conversationId}`).digest('base64url');
    return `${this.redis.prefix}ws-conversation:${hash}`;
  }
}
