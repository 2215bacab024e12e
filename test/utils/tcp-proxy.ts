import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy between Interlude and a service it depends on (PostgreSQL, Redis), to inject the faults a
 * real deployment meets without stopping the machine's shared services: connections cut, new ones
 * refused, then back to normal.
 */
export class TcpProxy {
  private refusing = false;
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

  /** Back to normal: new connections pass again. */
  heal(): void {
    this.refusing = false;
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
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
