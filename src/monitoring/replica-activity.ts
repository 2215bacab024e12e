import { randomUUID } from 'node:crypto';
import type { BackingRedis } from '../redis/backing-redis';
import type { UserActivity } from './user-activity.service';

/** One user's activity on one replica, with that replica's per-user workflow instances. */
export interface ReplicaUser extends UserActivity {
  functions: number;
}

/**
 * What the other replicas report of their users, for `/monitor/users` (each replica counts the
 * requests it serves). The memory adapter has no other replica; the Redis one keeps each replica's
 * latest snapshot under a key that expires unless refreshed, so a dead replica drops out.
 */
export abstract class ReplicaActivity {
  abstract publish(users: ReplicaUser[]): Promise<void>;
  abstract others(): Promise<ReplicaUser[][]>;
  abstract withdraw(): Promise<void>;
}

export class NoReplicaActivity extends ReplicaActivity {
  async publish(): Promise<void> {}
  async others(): Promise<ReplicaUser[][]> {
    return [];
  }
  async withdraw(): Promise<void> {}
}

/** How often a replica publishes its snapshot (when it changed); it expires after three misses. */
export const PUBLISH_EVERY_MS = 1000;
const SNAPSHOT_TTL_MS = 3 * PUBLISH_EVERY_MS + 2000;

/**
 * Snapshots in Redis rather than a counter per request: the request path stays in memory, and a
 * replica writes one key a second at most. Replicas are listed in a sorted set scored by last publish.
 */
export class RedisReplicaActivity extends ReplicaActivity {
  private readonly id = randomUUID();

  constructor(private readonly redis: BackingRedis) {
    super();
  }

  private get index(): string {
    return `${this.redis.prefix}monitor:replicas`;
  }

  private snapshotKey(id: string): string {
    return `${this.redis.prefix}monitor:replica:${id}`;
  }

  async publish(users: ReplicaUser[]): Promise<void> {
    const now = Date.now();
    await this.redis.client
      .multi()
      .set(this.snapshotKey(this.id), JSON.stringify(users), 'PX', SNAPSHOT_TTL_MS)
      .zadd(this.index, now, this.id)
      .zremrangebyscore(this.index, '-inf', now - SNAPSHOT_TTL_MS)
      .pexpire(this.index, SNAPSHOT_TTL_MS)
      .exec();
  }

  async others(): Promise<ReplicaUser[][]> {
    const since = Date.now() - SNAPSHOT_TTL_MS;
    const ids = (await this.redis.client.zrangebyscore(this.index, since, '+inf')).filter(
      (id) => id !== this.id,
    );
    if (ids.length === 0) return [];
    const snapshots = await this.redis.client.mget(ids.map((id) => this.snapshotKey(id)));
    return snapshots.flatMap((s) => {
      if (s === null) return [];
      try {
        return [JSON.parse(s) as ReplicaUser[]];
      } catch {
        return [];
      }
    });
  }

  async withdraw(): Promise<void> {
    await this.redis.client.multi().del(this.snapshotKey(this.id)).zrem(this.index, this.id).exec();
  }
}

/** Every replica's view of each user as one: sums of counts, the earliest start, the latest activity. */
export function mergeActivity(lists: ReplicaUser[][]): ReplicaUser[] {
  const merged = new Map<string, ReplicaUser>();
  for (const list of lists) {
    for (const u of list) {
      const seen = merged.get(u.userId);
      if (!seen) {
        merged.set(u.userId, { ...u });
        continue;
      }
      seen.createdAt = Math.min(seen.createdAt, u.createdAt);
      seen.lastActivity = Math.max(seen.lastActivity, u.lastActivity);
      seen.activeRequests += u.activeRequests;
      seen.totalRequests += u.totalRequests;
      seen.totalLatencyMs += u.totalLatencyMs;
      seen.errorCount += u.errorCount;
      seen.functions += u.functions;
    }
  }
  return [...merged.values()];
}
