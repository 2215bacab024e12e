import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { BackingRedis } from '../../src/redis/backing-redis';
import { Database } from '../../src/db/database';

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

  /** A replica's Redis under `prefix`; `url`: reached another way (through a TcpProxy). */
  async redis(prefix: string, url = this.redisUrl): Promise<BackingRedis> {
    const redis = await BackingRedis.open(url, prefix);
    this.opened.push(redis);
    return redis;
  }

  /** Every row of one of this schema's tables, as PostgreSQL holds it (what a test checks is stored). */
  async rows(table: string): Promise<Record<string, unknown>[]> {
    const client = new Client({ connectionString: process.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(`select * from ${this.schema}.${table}`)).rows;
    } finally {
      await client.end();
    }
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
  const redis = new Redis(redisUrl, { lazyConnect: true });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export interface RedisConnection {
  id: string;
  /** The last command it ran (`xread` while a follower is blocked in it). */
  cmd: string;
  blocked: boolean;
}

/** The connections to the Redis at `redisUrl` named `name` (CLIENT LIST; BackingRedis names its own). */
export async function connectionsNamed(redisUrl: string, name: string): Promise<RedisConnection[]> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  try {
    const list = String(await redis.client('LIST'));
    return list
      .split('\n')
      .map((line) => Object.fromEntries(line.split(' ').map((field) => field.split('=', 2))))
      .filter((fields: Record<string, string>) => fields.name === name)
      .map((fields: Record<string, string>) => ({
        id: fields.id,
        cmd: fields.cmd,
        blocked: (fields.flags ?? '').includes('b'),
      }));
  } finally {
    redis.disconnect();
  }
}

/** Drops the connections with these ids, as a network failure or a Redis restart would. */
export async function killConnections(redisUrl: string, ids: string[]): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true });
  try {
    for (const id of ids) await redis.client('KILL', 'ID', id);
  } finally {
    redis.disconnect();
  }
}

/** Polls `find` (every 20 ms, for up to 5 s) until it returns something. */
export async function waitFor<T>(what: string, find: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
