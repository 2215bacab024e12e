import { randomUUID } from 'node:crypto';
import type { BackingRedis, LuaScript } from './backing-redis';
import { RedisChannel, type RedisChannelOptions } from './redis-channel';

/**
 * How long a key's audience is kept in Redis after the last join or message (each extends it). A
 * replica counts itself a member for a tenth less, from before it asked, so it never counts itself one
 * when Redis has forgotten it.
 */
const KEPT_MS = 60 * 60 * 1000;
const MEMBER_MS = KEPT_MS * 0.9;
/** Keys this replica remembers joining (past it the oldest goes: it joins that one again when needed). */
const MAX_JOINED = 20_000;

/** The field of an audience's hash that holds when (Redis's clock, ms) it was last told something. */
const TOLD_AT = '@';

/** Redis's clock, in ms, as a script sees it. */
const NOW = `local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)`;

/**
 * KEYS[1] the audience; ARGV: the teller, KEPT_MS, the message, the channels' prefix, '1' when the
 * teller joins. Publishes the message to every member but the teller. Returns how many were told.
 */
const TELL_LUA = `${NOW}
local told = 0
for _, member in ipairs(redis.call('HKEYS', KEYS[1])) do
  if member ~= '${TOLD_AT}' and member ~= ARGV[1] then
    redis.call('PUBLISH', ARGV[4] .. member, ARGV[3])
    told = told + 1
  end
end
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], '${TOLD_AT}', now, ARGV[1], 1)
else redis.call('HSET', KEYS[1], '${TOLD_AT}', now) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return told`;
const TELL: LuaScript = { name: 'audienceTell', lua: TELL_LUA, keys: 1 };

/** KEYS[1] the audience; ARGV: the member, KEPT_MS. Returns the ms since it was last told something, or -1. */
const JOIN_LUA = `${NOW}
local at = redis.call('HGET', KEYS[1], '${TOLD_AT}')
redis.call('HSET', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if at then return now - tonumber(at) end
return -1`;
const JOIN: LuaScript = { name: 'audienceJoin', lua: JOIN_LUA, keys: 1 };

/**
 * Messages about one key (an execution) for the replicas that take part in it, and for no other: a
 * replica joins a key's audience (`join`, or by telling it something), and from then on receives what
 * any other member `tell`s it, on a channel of its own per topic (`listen`). A replica that never took
 * part in a key is not woken by it, so what each replica receives does not grow with the number of
 * replicas. Telling is one script (read the members, publish to each, join the teller): one command,
 * as a broadcast was.
 *
 * Membership lives in Redis (a hash per key, kept `KEPT_MS` after its last use) and is remembered here.
 * When the subscriber connection is lost, or the command connection comes back (Redis may have
 * restarted empty), this replica remembers no membership and joins again on next use.
 */
export class RedisAudience {
  /** This replica, as a member: the name of its own channels. */
  readonly me = randomUUID();
  /** Keys joined, with until when (this process's clock) the membership surely holds. */
  private readonly joinedUntil = new Map<string, number>();
  /** Joins asked for and not answered yet: a second join of the same key waits for the first. */
  private readonly joining = new Map<string, Promise<number>>();
  /** Bumped each time memberships may have been lost: a join answered after that remembers nothing. */
  private epoch = 0;

  constructor(
    private readonly redis: BackingRedis,
    /** What the keys are (`executions`): audiences and channels are named under it. */
    private readonly name: string,
  ) {
    redis.onUnsubscribed(() => this.forgetAll());
    redis.onReconnected(() => this.forgetAll());
  }

  /**
   * Hands each message told to this replica on the topic `options.name` to `onMessage`, parsed;
   * resolves once subscribed.
   */
  listen(options: RedisChannelOptions, onMessage: (value: unknown) => void): Promise<void> {
    const own = new RedisChannel(this.redis, {
      ...options,
      name: `${this.name}:${options.name}:to:${this.me}`,
    });
    return own.subscribe(onMessage);
  }

  /** Whether this replica is surely a member of `key`'s audience (it receives what is told). */
  joined(key: string): boolean {
    const until = this.joinedUntil.get(key);
    if (until === undefined) return false;
    if (until > performance.now()) return true;
    this.joinedUntil.delete(key);
    return false;
  }

  /**
   * Joins `key`'s audience: everything told from Redis's answer on reaches this replica. Resolves to
   * the ms since the audience was last told something (Infinity: never, or so long ago it was
   * forgotten), which a message sent just before may concern; rejects when Redis cannot be asked (at
   * once while it is not connected).
   */
  join(key: string): Promise<number> {
    let joining = this.joining.get(key);
    if (!joining) {
      joining = this.joinNow(key).finally(() => this.joining.delete(key));
      this.joining.set(key, joining);
    }
    return joining;
  }

  private async joinNow(key: string): Promise<number> {
    const asked = this.asking();
    this.connected();
    const since = Number(await this.redis.runScript(JOIN, this.key(key), this.me, KEPT_MS));
    this.joinedAt(key, asked);
    return since < 0 ? Infinity : since;
  }

  /**
   * Sends `message` (JSON) on `topic` to every other member of `key`'s audience, and (unless `join` is
   * false) joins it; rejects when Redis cannot be asked.
   */
  async tell(key: string, topic: string, message: unknown, { join = true } = {}): Promise<void> {
    const asked = this.asking();
    this.connected();
    const text = JSON.stringify(message);
    const channels = `${this.redis.prefix}${this.name}:${topic}:to:`;
    const joining = join ? '1' : '0';
    await this.redis.runScript(TELL, this.key(key), this.me, KEPT_MS, text, channels, joining);
    if (join) this.joinedAt(key, asked);
  }

  /** Not queued for the seconds ioredis would retry it while Redis is away: the caller goes on without it. */
  private connected(): void {
    if (!this.redis.ready) throw new Error('Redis is not connected');
  }

  /** The audience's hash, its key in braces (a hash tag, as the event logs' keys have). */
  private key(key: string): string {
    return `${this.redis.prefix}${this.name}:audience:{${key}}`;
  }

  private asking(): { at: number; epoch: number } {
    return { at: performance.now(), epoch: this.epoch };
  }

  private joinedAt(key: string, asked: { at: number; epoch: number }): void {
    if (asked.epoch !== this.epoch) return;
    this.joinedUntil.delete(key);
    if (this.joinedUntil.size >= MAX_JOINED) this.joinedUntil.delete(this.joinedUntil.keys().next().value!);
    this.joinedUntil.set(key, asked.at + MEMBER_MS);
  }

  private forgetAll(): void {
    this.epoch++;
    this.joinedUntil.clear();
  }
}
