import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/** What the proxy does to traffic: pass it, refuse new connections, or accept and never answer. */
export type ProxyMode = 'pass' | 'refuse' | 'hang';

/**
 * A TCP proxy between Interlude and a service it depends on (PostgreSQL, Redis), to inject the faults a
 * real deployment meets without stopping the machine's shared services: connections cut, connections
 * refused, a partition (connections accepted, nothing forwarded), every round trip delayed.
 */
export class TcpProxy {
  private mode: ProxyMode = 'pass';
  private delayMs = 0;
  private readonly pairs = new Set<{ client: Socket; upstream: Socket }>();

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

  /** How many client connections pass through now. */
  get connections(): number {
    return this.pairs.size;
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
    this.mode = 'refuse';
  }

  /** A partition: connections open and stay open, nothing reaches either side (open ones included). */
  hang(): void {
    this.mode = 'hang';
    for (const { client, upstream } of this.pairs) {
      client.pause();
      upstream.pause();
    }
  }

  /** Every chunk, either way, waits `ms` before it is forwarded. */
  delay(ms: number): void {
    this.delayMs = ms;
  }

  /** Back to normal: connections pass, paused ones resume, no delay. */
  heal(): void {
    this.mode = 'pass';
    this.delayMs = 0;
    for (const { client, upstream } of this.pairs) {
      client.resume();
      upstream.resume();
    }
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.mode === 'refuse') {
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
    if (this.mode === 'hang') {
      client.pause();
      upstream.pause();
    }
  }

  private forward(from: Socket, to: Socket): void {
    from.on('data', (chunk: Buffer) => {
      if (this.delayMs === 0) to.write(chunk);
      else {
        // Chunks keep their order: each waits the same time from its arrival.
        from.pause();
        setTimeout(() => {
          to.write(chunk);
          if (this.mode !== 'hang') from.resume();
        }, this.delayMs);
      }
    });
  }
}
