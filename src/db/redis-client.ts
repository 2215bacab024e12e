import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

/** A RESP2 reply: simple and bulk strings, integers, arrays, nil. */
export type RedisReply = string | number | null | RedisReply[];

export class RedisError extends Error {
  override name = 'RedisError';
}

/** The connection went away under a command: it may or may not have run. */
class ConnectionLost extends RedisError {}

/** Where a `redis://[user:password@]host[:port][/db]` or `rediss://` URL points. */
export interface RedisTarget {
  host: string;
  port: number;
  tls: boolean;
  username?: string;
  password?: string;
  db?: number;
}

export function parseRedisUrl(url: string): RedisTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('redis_url is not a valid URL (use redis://host:port or rediss://host:port)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error('redis_url must start with redis:// or rediss://');
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) throw new Error(`redis_url database "${db}" must be a number`);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1',
    port: parsed.port ? Number(parsed.port) : 6379,
    tls: parsed.protocol === 'rediss:',
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    db: db === '' ? undefined : Number(db),
  };
}

/** The URL with its password hidden, for logs and readiness reports. */
export function redactRedisUrl(url: string): string {
  return url.replace(/^(rediss?:\/\/[^:/@]*:)[^@]*@/, '$1***@');
}

const CRLF = Buffer.from('\r\n');

function encode(args: (string | number)[]): Buffer {
  const parts: Buffer[] = [Buffer.from(`*${args.length}\r\n`)];
  for (const arg of args) {
    const bytes = Buffer.from(String(arg));
    parts.push(Buffer.from(`$${bytes.length}\r\n`), bytes, CRLF);
  }
  return Buffer.concat(parts);
}

/** Parses one reply at `at`; undefined when the buffer does not hold all of it yet. */
function parse(buf: Buffer, at: number): { value: RedisReply | RedisError; next: number } | undefined {
  const eol = buf.indexOf(CRLF, at);
  if (eol < 0) return undefined;
  const type = buf[at];
  const line = buf.toString('utf8', at + 1, eol);
  switch (type) {
    case 0x2b: // +
      return { value: line, next: eol + 2 };
    case 0x2d: // -
      return { value: new RedisError(line), next: eol + 2 };
    case 0x3a: // :
      return { value: Number(line), next: eol + 2 };
    case 0x24: {
      // $
      const length = Number(line);
      if (length < 0) return { value: null, next: eol + 2 };
      if (buf.length < eol + 2 + length + 2) return undefined;
      return { value: buf.toString('utf8', eol + 2, eol + 2 + length), next: eol + 2 + length + 2 };
    }
    case 0x2a: {
      // *
      const count = Number(line);
      if (count < 0) return { value: null, next: eol + 2 };
      const items: RedisReply[] = [];
      let next = eol + 2;
      for (let i = 0; i < count; i++) {
        const item = parse(buf, next);
        if (!item) return undefined;
        if (item.value instanceof RedisError) throw item.value;
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new RedisError(`unexpected reply type ${String.fromCharCode(type)}`);
  }
}

interface Pending {
  resolve(value: RedisReply): void;
  reject(err: Error): void;
}

/**
 * A small Redis client (RESP2 over one connection): commands are sent and answered in order. One
 * connection either runs commands or, after `subscribe`, receives messages; a blocking read (XREAD
 * BLOCK) holds its connection, so each blocked reader has its own. It connects on first use and again
 * after a lost connection (commands in flight then fail); a subscriber re-subscribes.
 */
export class RedisClient {
  private socket?: Socket;
  private ready?: Promise<void>;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private readonly channels = new Map<string, (message: string) => void>();
  private closed = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly target: RedisTarget,
    private readonly connectTimeoutMs = 5000,
  ) {}

  static fromUrl(url: string): RedisClient {
    return new RedisClient(parseRedisUrl(url));
  }

  /** A new, separate connection to the same server. */
  duplicate(): RedisClient {
    return new RedisClient(this.target, this.connectTimeoutMs);
  }

  /**
   * Sends a command once connected. One that was in flight when the connection dropped is sent once
   * more on a new one: every command this server sends may run twice (XADD with an explicit id, DEL,
   * EXPIRE, PUBLISH of a wake-up its receiver ignores the second time, reads).
   */
  async command(...args: (string | number)[]): Promise<RedisReply> {
    await this.connected();
    try {
      return await this.send(args);
    } catch (err) {
      if (!(err instanceof ConnectionLost) || this.closed) throw err;
      await this.connected();
      return this.send(args);
    }
  }

  /** Receives every message published on `channel` from now on (resolves once subscribed). */
  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    this.channels.set(channel, onMessage);
    await this.command('SUBSCRIBE', channel);
  }

  /** Ends the connection once the commands sent so far are answered (or after `timeoutMs`). */
  async quit(timeoutMs = 2000): Promise<void> {
    if (this.socket && !this.socket.destroyed && this.channels.size === 0) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)));
      await Promise.race([this.send(['QUIT']).catch(() => undefined), timeout]);
      clearTimeout(timer);
    }
    this.close();
  }

  /** Ends the connection; pending commands fail. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.socket?.destroy();
    this.drop(new RedisError('connection closed'));
  }

  private connected(): Promise<void> {
    if (this.closed) return Promise.reject(new RedisError('connection closed'));
    this.ready ??= this.open();
    return this.ready;
  }

  private open(): Promise<void> {
    const { host, port, tls } = this.target;
    return new Promise<void>((resolve, reject) => {
      const socket = tls ? tlsConnect({ host, port, servername: host }) : netConnect({ host, port });
      socket.setNoDelay(true);
      socket.setTimeout(this.connectTimeoutMs, () =>
        socket.destroy(new RedisError(`no connection to ${host}:${port} in ${this.connectTimeoutMs} ms`)),
      );
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        socket.setTimeout(0);
        void this.handshake().then(resolve, reject);
      });
      socket.on('data', (chunk) => this.receive(chunk));
      socket.on('error', (err) => reject(err));
      socket.on('close', () => this.lost(socket));
      this.socket = socket;
    }).catch((err: Error) => {
      this.ready = undefined;
      this.socket?.destroy();
      throw new RedisError(`Redis ${this.target.host}:${this.target.port}: ${err.message}`);
    });
  }

  private async handshake(): Promise<void> {
    const { username, password, db } = this.target;
    if (password !== undefined) {
      await this.send(username ? ['AUTH', username, password] : ['AUTH', password]);
    }
    if (db !== undefined) await this.send(['SELECT', db]);
    for (const channel of this.channels.keys()) await this.send(['SUBSCRIBE', channel]);
  }

  private send(args: (string | number)[]): Promise<RedisReply> {
    const socket = this.socket;
    if (!socket || socket.destroyed) return Promise.reject(new ConnectionLost('not connected'));
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      socket.write(encode(args));
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let at = 0;
    try {
      for (;;) {
        const reply = parse(this.buffer, at);
        if (!reply) break;
        at = reply.next;
        this.dispatch(reply.value);
      }
    } catch (err) {
      this.socket?.destroy(err as Error);
      return;
    }
    this.buffer = at === this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(at);
  }

  private dispatch(value: RedisReply | RedisError): void {
    if (Array.isArray(value) && value[0] === 'message' && this.channels.size > 0) {
      this.channels.get(String(value[1]))?.(String(value[2]));
      return;
    }
    const waiter = this.pending.shift();
    if (!waiter) return;
    if (value instanceof RedisError) waiter.reject(value);
    else waiter.resolve(value);
  }

  private lost(socket: Socket): void {
    if (this.socket !== socket) return;
    this.socket = undefined;
    this.ready = undefined;
    this.buffer = Buffer.alloc(0);
    this.drop(new ConnectionLost('connection lost'));
    // A subscriber comes back by itself; a command connection reconnects on its next command.
    if (!this.closed && this.channels.size > 0) {
      this.retry = setTimeout(() => void this.connected().catch(() => undefined), 500);
      this.retry.unref();
    }
  }

  private drop(err: Error): void {
    for (const waiter of this.pending.splice(0)) waiter.reject(err);
  }
}
