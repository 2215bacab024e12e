import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between Interlude and a service it depends on (PostgreSQL, Redis), to inject the faults a
 * real deployment meets without stopping the machine's shared services: connections cut, new ones
 * refused, every round trip slowed, a network partition (everything hangs), then back to normal.
 */
export class TcpProxy {
  private refusing = false;
  /** Milliseconds each chunk waits, in each direction, before it is passed on. */
  private latency = 0;
  /** A partition: chunks are held (not delivered, not refused) until `heal`. */
  private hanging = false;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();
  /** Delivers the chunks each direction of each connection holds (called by `heal`). */
  private readonly flushes = new Set<() => void>();

  private constructor(
    private readonly server: Server,
    private readonly target: { host: string; port: number },
  ) {
    server.on('connection', (client) => this.accept(client));
  }

  /** A proxy on 127.0.0.1 (an ephemeral port) to `host:port`. */
  static async start(host: string, port: number): Promise<TcpProxy> {
    const server = createServer();
    const proxy = new TcpProxy(server, { host, port });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** `url` (postgres://… or redis://…) with its host and port replaced by the proxy's. */
  via(url: string): string {
    const u = new URL(url);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Closes every connection now open (a restart or fail-over as its clients see it). */
  cut(): void {
    for (const { client, upstream } of this.pairs) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
  }

  /** From now on new connections are closed as soon as they open. */
  refuse(): void {
    this.refusing = true;
  }

  /**
   * From now on every chunk, both ways and on every connection (open or new), is passed on `ms` later:
   * a round trip costs 2 × `ms` more, as with a dependency under someone else's load. Order is kept.
   */
  delay(ms: number): void {
    this.latency = ms;
  }

  /**
   * A network partition, as its clients see it: packets dropped, not refused. From now on every
   * connection, open or new (accepted, never refused), delivers nothing either way, and nothing is
   * closed: a client's request neither fails nor gets an answer. What was sent meanwhile is delivered
   * in order once `heal`ed, as TCP retransmits once the network is back.
   */
  hang(): void {
    this.hanging = true;
  }

  /** Back to normal: new connections pass again, chunks without delay, and what a hang held goes on. */
  heal(): void {
    this.refusing = false;
    this.latency = 0;
    this.hanging = false;
    for (const flush of [...this.flushes]) flush();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    const pair = { client, upstream };
    this.pairs.add(pair);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    this.forward(client, upstream);
    this.forward(upstream, client);
  }

  /** Passes `from`'s chunks to `to` in order, each after the latency in force when it arrived. */
  private forward(from: Socket, to: Socket): void {
    const queue: { due: number; chunk: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const drain = () => {
      timer = undefined;
      if (this.hanging) return;
      while (queue.length > 0 && queue[0].due <= Date.now()) to.write(queue.shift()!.chunk);
      if (queue.length > 0) timer = setTimeout(drain, queue[0].due - Date.now());
    };
    const flush = () => {
      clearTimeout(timer);
      drain();
    };
    this.flushes.add(flush);
    from.on('data', (chunk: Buffer) => {
      if (this.hanging) {
        // Held until `heal` (no timer: nothing is due before it).
        queue.push({ due: 0, chunk });
        return;
      }
      if (this.latency === 0 && queue.length === 0) {
        to.write(chunk);
        return;
      }
      queue.push({ due: Date.now() + this.latency, chunk });
      timer ??= setTimeout(drain, this.latency);
    });
    from.on('close', () => {
      clearTimeout(timer);
      this.flushes.delete(flush);
    });
  }
}
