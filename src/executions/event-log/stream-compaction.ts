import type { BackingRedis, LuaScript } from '../../redis/backing-redis';
import type { LogWrites } from './log-writes';

/**
 * Redis 7 gives a new Stream node its whole 4 KiB up front (`stream-node-max-bytes`, at most 4096),
 * and gives the slack back only once the node is full: an execution waiting on a prompt with a short
 * log held about 4.7 KB in Redis for a few hundred bytes of events. DUMP and RESTORE (same key, same
 * time to live, atomically in one script) rewrite the Stream with no slack: entries, ids and last id
 * as they were; a follower blocked on it keeps waiting for the entries after its own id. A Redis that
 * refuses either command leaves the Stream as it is (pcall: the script never fails the pipeline).
 */
const COMPACT_LUA = `
local dump = redis.pcall('DUMP', KEYS[1])
if type(dump) ~= 'string' then return 0 end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then ttl = 0 end
local done = redis.pcall('RESTORE', KEYS[1], ttl, dump, 'REPLACE')
if type(done) == 'table' and done.err then return 0 end
return 1`;

/** Sent by its SHA1 once Redis holds it (BackingRedis.script), as the other scripts are. */
const COMPACT: LuaScript = { name: 'compactStream', lua: COMPACT_LUA, keys: 1 };

/** Streams past this are not rewritten (the copy costs Redis time; the slack is small beside them). */
export const COMPACT_UP_TO_BYTES = 64 * 1024;

/** Rewrites the Stream at `key` without its node's unused bytes (after the commands before it). */
export function compactStream(commands: LogWrites, redis: BackingRedis, key: string): void {
  commands.script(redis.script(COMPACT), key);
}
