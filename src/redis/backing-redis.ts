import { Logger } from '@nestjs/common';
import type { Redis, RedisOptions } from 'ioredis';
import { checkRedisUrl, redactRedisUrl } from './redis-url';
import { DeliveryBarrier } from './delivery-barrier';
import { ReaderPool } from './reader-pool';

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

/** How long `delivered` waits for Redis before it answers false (the caller then reads elsewhere). */
const DELIVERED_WITHIN_MS = 250;

/** A Lua script run by `BackingRedis.runScript`: its command name (one per script), its Lua, its key count. */
export interface LuaScript {
  name: string;
  lua: string;
  keys: number;
}

/** A script defined on a connection, as ioredis adds it: called with its keys, then its arguments. */
type ScriptCall = (...args: (string | number)[]) => Promise<unknown>;

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
  /** Blocking readers whose reads ended, for the next (`reader`, `returned`). */
  private readonly readers = new ReaderPool(
    () => this.connection('reader'),
    (client) => this.release(client),
  );
  private subscriber?: Redis;
  private subscriberOpened?: Promise<void>;
  private readonly channels = new Map<string, (message: string) => void>();
  private readonly resubscribed = new Set<() => void>();
  private readonly unsubscribed = new Set<() => void>();
  /** Whether what was published before now has arrived (`delivered`), one PING for every caller waiting. */
  private readonly barrier = new DeliveryBarrier(() => {
    const subscriber = this.subscriber;
    return subscriber?.status === 'ready' ? subscriber.ping() : undefined;
  }, DELIVERED_WITHIN_MS);
  private readonly reconnected = new Set<() => void>();
  /** The scripts defined on the command connection (`runScript`): their Lua, by name. */
  private readonly scripts = new Map<string, string>();
  /** The shared connection's state (`/metrics`): up, and how many times it came back. */
  readonly health = { up: true, reconnects: 0 };

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
  /**
   * `commandTimeoutMs` bounds each command of the command and subscriber connections, from when it
   * is sent or queued: past it, it fails ("Command timed out", a dependency outage: 503) rather than
   * wait for a connection that hangs (a partition: nothing is refused, nothing closes) or for a
   * reconnect. A late answer is matched to its command and dropped; the order on the connection holds.
   */
  static async open(url: string, prefix: string, commandTimeoutMs?: number): Promise<BackingRedis> {
    const client = new (ioredis())(checkRedisUrl(url), {
      ...OPTIONS,
      connectionName: `${prefix}commands`,
      // The socket too: one that receives nothing for as long while a command waits is closed and
      // reconnected (then Redis counts as down, and what is sent meanwhile waits in the offline queue).
      ...(commandTimeoutMs ? { commandTimeout: commandTimeoutMs, socketTimeout: commandTimeoutMs } : {}),
    });
    try {
      await connected(client);
    } catch (err) {
      throw new Error(`Cannot reach Redis at ${redactRedisUrl(url)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    const redis = new BackingRedis(client, prefix, url);
    BackingRedis.watch(client, url, redis.health, () => redis.reconnected.forEach((listener) => listener()));
    BackingRedis.logger.log(`${redactRedisUrl(url)}: connected (keys under "${prefix}")`);
    return redis;
  }

  /**
   * Logs the first error of each outage of `client` (ioredis emits one per reconnect attempt), and
   * one line when it is back; `health` follows the shared connection.
   */
  private static watch(
    client: Redis,
    url: string,
    health?: { up: boolean; reconnects: number },
    back?: () => void,
  ): void {
    let reported = false;
    const name = client.options.connectionName ?? 'connection';
    client.on('error', (err: Error) => {
      if (reported) return;
      reported = true;
      if (health) health.up = false;
      BackingRedis.logger.warn(`${redactRedisUrl(url)} (${name}): ${err.message}; reconnecting`);
    });
    client.on('close', () => {
      if (health) health.up = false;
    });
    client.on('ready', () => {
      if (health && !health.up) {
        health.up = true;
        health.reconnects++;
        BackingRedis.logger.log(`${redactRedisUrl(url)} (${name}): reachable again`);
        back?.();
      }
      reported = false;
    });
  }

  get configured(): boolean {
    return this.shared !== undefined;
  }

  /** Whether the command connection is connected now (commands sent now are not queued). */
  get ready(): boolean {
    return this.shared?.status === 'ready';
  }

  /** Runs `script` on the command connection with `args` (its keys first), by its SHA1 (`script`). */
  runScript(script: LuaScript, ...args: (string | number)[]): Promise<unknown> {
    const client = this.client as unknown as Record<string, ScriptCall>;
    return client[this.script(script)](...args);
  }

  /**
   * `script` as a command of the command connection and its pipelines; returns its name. It is sent by
   * its SHA1 (EVALSHA, through ioredis's `defineCommand`), whole only when Redis does not hold it yet
   * (a new connection, a SCRIPT FLUSH), rather than whole on every call as EVAL sends it.
   */
  script(script: LuaScript): string {
    const defined = this.scripts.get(script.name);
    if (defined === undefined) {
      this.client.defineCommand(script.name, { numberOfKeys: script.keys, lua: script.lua });
      this.scripts.set(script.name, script.lua);
    } else if (defined !== script.lua) {
      throw new Error(`Two Redis scripts are named ${script.name}`);
    }
    return script.name;
  }

  /** The shared command connection. */
  get client(): Redis {
    if (!this.shared) throw new Error('No Redis is configured (general.executions.store is memory)');
    return this.shared;
  }

  /**
   * A connection of its own (a blocking reader); closed with `release` or `close`. Its commands are
   * not bounded by the command timeout (an XREAD BLOCK rightly waits longer), unless `bounded`.
   */
  connection(name = 'reader', bounded = false): Redis {
    const client = this.client.duplicate({
      connectionName: `${this.prefix}${name}`,
      ...(bounded ? {} : { commandTimeout: undefined, socketTimeout: undefined }),
    });
    BackingRedis.watch(client, this.url!);
    this.extra.add(client);
    return client;
  }

  /**
   * A connection for blocking reads (XREAD BLOCK), one given back earlier if any (reader-pool.ts): give
   * it back with `returned` once none of its commands is under way, or close it with `release`.
   */
  reader(): Redis {
    return this.readers.take();
  }

  /** A reader none of whose commands is under way: kept for the next `reader`, or closed. */
  returned(client: Redis): void {
    this.readers.give(client, this.extra.has(client));
  }

  /** Receives what is published on `channel`, over the one subscriber connection of this process. */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    if (!this.subscriber) {
      const subscriber = (this.subscriber = this.connection('subscriber', true));
      subscriber.on('message', (from: string, message: string) => this.channels.get(from)?.(message));
      let lost = false;
      subscriber.on('close', () => {
        if (lost) return;
        lost = true;
        this.unsubscribed.forEach((listener) => listener());
      });
      subscriber.on('ready', () => {
        if (!lost) return;
        lost = false;
        // ioredis subscribes again on its own; once this SUBSCRIBE is answered, so are its.
        void subscriber.subscribe(...this.channels.keys()).then(
          () => this.resubscribed.forEach((listener) => listener()),
          () => undefined,
        );
      });
      // Connected before any SUBSCRIBE: ioredis sends one at once while the connection is being set up,
      // and the ready check that follows (INFO) then fails in subscriber mode, and with it the start-up.
      this.subscriberOpened = subscriber.connect();
    }
    this.channels.set(channel, onMessage);
    await this.subscriberOpened;
    await this.subscriber.subscribe(channel);
  }

  /**
   * Calls `listener` each time the subscriber connection is back and subscribed again after it was
   * lost (a Redis restart or outage): what was published meanwhile never arrived.
   */
  onResubscribed(listener: () => void): void {
    this.resubscribed.add(listener);
  }

  /** Calls `listener` each time the subscriber connection is lost: what is published from then on is missed. */
  onUnsubscribed(listener: () => void): void {
    this.unsubscribed.add(listener);
  }

  /**
   * True once every message published on a channel before this call has been handed to its listener
   * here; false when that cannot be told soon (the subscriber connection is down or slow).
   */
  delivered(): Promise<boolean> {
    return this.barrier.passed();
  }

  /**
   * Calls `listener` each time the command connection is back after it was lost: Redis may have
   * restarted empty (it keeps nothing on disk), so what only Redis held is to be written again.
   */
  onReconnected(listener: () => void): void {
    this.reconnected.add(listener);
  }

  release(client: Redis): void {
    client.disconnect();
    this.extra.delete(client);
    this.readers.forget(client);
  }

  /** Closes every connection; the shared one after what was sent on it is answered (or 2 s). */
  async close(): Promise<void> {
    for (const client of this.extra) client.disconnect();
    this.extra.clear();
    this.readers.clear();
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
