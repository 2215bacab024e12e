import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { BackingRedis } from '../../src/db/backing-redis';
import { Database } from '../../src/db/database';
import { RedisClient } from '../../src/db/redis-client';

/**
 * The shared services several replicas use, for one test run: a schema of its own in DATABASE_URL's
 * database and a key prefix of its own in REDIS_URL's Redis (other runs use them at the same time).
 * Every Database and BackingRedis opened here is closed, and the schema and keys removed, by `cleanup`.
 */
export class ReplicaServices {
  readonly tag = randomBytes(6).toString('hex');
  readonly schema = `replicas_${this.tag}`;
  /** Fresh keys per `newPrefix()`; all under this. */
  readonly rootPrefix = `interlude-test:${this.tag}:`;
  private prefixes = 0;
  private readonly opened: { close(): unknown }[] = [];

  /** `DATABASE_URL` with `?schema=` naming this run's schema. */
  get dbUrl(): string {
    const url = new URL(process.env.DATABASE_URL!);
    url.searchParams.set('schema', this.schema);
    return url.toString();
  }

  get redisUrl(): string {
    return process.env.REDIS_URL!;
  }

  newPrefix(): string {
    return `${this.rootPrefix}${++this.prefixes}:`;
  }

  async database(): Promise<Database> {
    const database = await Database.open(this.dbUrl);
    this.opened.push(database);
    return database;
  }

  async redis(prefix: string): Promise<BackingRedis> {
    const redis = await BackingRedis.open(this.redisUrl, prefix);
    this.opened.push(redis);
    return redis;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.opened.splice(0).map((o) => o.close()));
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      await client.query(`drop schema if exists ${this.schema} cascade`);
    } finally {
      await client.end();
    }
    await deleteKeys(this.redisUrl, `${this.rootPrefix}*`);
  }
}

/** Deletes the keys matching `pattern` (SCAN, never KEYS). */
export async function deleteKeys(redisUrl: string, pattern: string): Promise<void> {
  const redis = RedisClient.fromUrl(redisUrl);
  try {
    let cursor = '0';
    do {
      const [next, keys] = (await redis.command('SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [
        string,
        string[],
      ];
      cursor = next;
      if (keys.length) await redis.command('DEL', ...keys);
    } while (cursor !== '0');
  } finally {
    redis.close();
  }
}
