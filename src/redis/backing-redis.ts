import { Logger } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';
import { checkRedisUrl, redactRedisUrl } from './redis-url';

/**
 * How every connection behaves. ioredis reconnects by itself after a lost connection (every
 * `retryStrategy` ms), re-sends the commands that were unanswered (XREAD of a blocked follower
 * included, with the id it was given, so it resumes where it was) and re-subscribes a subscriber.
 */
const OPTIONS: RedisOptions = {
  // Nothing connects in the constructor: `open` connects and reports a failure itself, rather than an
  // 'error' event nobody listens to yet.
  lazyConnect: true,
  connectTimeout: 5000,
  // A closed connection whose socket does not end by itself (or had already gone) is destroyed after
  // this, rather than ioredis's 2 s that hold up a shutdown.
  disconnectTimeout: 500,
  retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
  // A command sent while Redis is away waits in the offline queue through ten reconnect attempts
  // (about five seconds, enough for a restart) and then fails: an answer or a cancel (PUBLISH) gets a
  // clear error rather than a request that hangs, and a follower's XREAD fails into its own retry
  // loop. Not `null` (wait forever, what BullMQ's workers need) and not the default 20 (~20 s).
  maxRetriesPerRequest: 10,
};

/** ioredis, loaded when a config names a Redis: the memory adapters never load it. */
function ioredis(): typeof Redis {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('ioredis') as typeof import('ioredis')).Redis;
}

/** Connects `client` and PINGs it; a failure is the error that caused it, and leaves it closed. */
async function connected(client: Redis): Promise<void> {
  let failure: Error | undefined;
  const remember = (err: Error) => (failure ??= err);
  client.on('error', remember);
  try {
    await client.connect();
    await client.ping();
  } catch (err) {
    client.disconnect();
    // "Connection is closed." says less than the error event before it (ECONNREFUSED, WRONGPASS…).
    throw failure ?? err;
  }
  client.off('error', remember);
}

/**
 * The Redis the scale-out adapters share (event logs, wake-ups), or none (the memory store): an
 * ioredis command connection; blocking readers open their own with `connection()`, and subscriptions
 * share one subscriber connection per process. Connections are named `<prefix>commands`,
 * `<prefix>reader` and `<prefix>subscriber` (CLIENT LIST).
 */
export class BackingRedis {
  private static readonly logger = new Logger('Redis');
  private readonly extra = new Set<Redis>();
  private subscriber?: Redis;
  private readonly channels = new Map<string, (message: string) => void>();

  private constructor(
    private readonly shared: Redis | undefined,
    /** Prefix of every key and channel. */
    readonly prefix: string,
    readonly url?: string,
  ) {}

  static none(): BackingRedis {
    return new BackingRedis(undefined, '');
  }

  /** Connects (and checks the server answers) before the server listens. */
  static async open(url: string, prefix: string): Promise<BackingRedis> {
    const client = new (ioredis())(checkRedisUrl(url), { ...OPTIONS, connectionName: `${prefix}commands` });
    try {
      await connected(client);
    } catch (err) {
      throw new Error(`Cannot reach Redis at ${redactRedisUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    BackingRedis.watch(client, url);
    BackingRedis.logger.log(`${redactRedisUrl(url)}: connected (keys under "${prefix}")`);
    return new BackingRedis(client, prefix, url);
  }

  /** Logs the first error of each outage of `client` (ioredis emits one per reconnect attempt). */
  private static watch(client: Redis, url: string): void {
    let reported = false;
    client.on('error', (err: Error) => {
      if (reported) return;
      reported = true;
      const name = client.options.connectionName ?? 'connection';
      BackingRedis.logger.warn(`${redactRedisUrl(url)} (${name}): ${err.message}; reconnecting`);
    });
    client.on('ready', () => (reported = false));
  }

  get configured(): boolean {
    return this.shared !== undefined;
  }

  /** The shared command connection. */
  get client(): Redis {
    if (!this.shared) throw new Error('No Redis is configured (general.executions.store is memory)');
    return this.shared;
  }

  /** A connection of its own (a blocking reader); closed with `release` or `close`. */
  connection(name = 'reader'): Redis {
    const client = this.client.duplicate({ connectionName: `${this.prefix}${name}` });
    BackingRedis.watch(client, this.url!);
    this.extra.add(client);
    return client;
  }

  /** Receives what is published on `channel`, over the one subscriber connection of this process. */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    if (!this.subscriber) {
      this.subscriber = this.connection('subscriber');
      this.subscriber.on('message', (from: string, message: string) => this.channels.get(from)?.(message));
    }
    this.channels.set(channel, onMessage);
    await this.subscriber.subscribe(channel);
  }

  release(client: Redis): void {
    client.disconnect();
    this.extra.delete(client);
  }

  /** Closes every connection; the shared one after what was sent on it is answered (or 2 s). */
  async close(): Promise<void> {
    for (const client of this.extra) client.disconnect();
    this.extra.clear();
    this.subscriber = undefined;
    const shared = this.shared;
    if (!shared) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise((resolve) => (timer = setTimeout(resolve, 2000)));
    await Promise.race([shared.quit().catch(() => undefined), timeout]);
    clearTimeout(timer);
    shared.disconnect();
  }
}
