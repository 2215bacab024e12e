import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { Logger, type INestApplicationContext, type WsMessageHandler } from '@nestjs/common';
import { AbstractWsAdapter } from '@nestjs/websockets';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { isObservable } from 'rxjs';
import { jsonDepth, MAX_JSON_DEPTH } from '../core/validation/validation-issues';
import type { TrustedProxy, UntrustedForwardedFor } from '../core/http/client-address';
import { addressOf, OpenCounter } from '../core/http/connection-caps';
import type { HostCheck } from '../core/http/host-check';
import { InboundBudget } from './inbound-budget';

/**
 * The message name under which the adapter hands a gateway the frames it could not route: not JSON,
 * not an object, no `type`, a binary frame, or a `type` no handler subscribes to.
 */
export const INVALID_FRAME = '$invalid_frame';

export interface InvalidFrame {
  code: 'invalid_message' | 'invalid_message_type';
  details: string;
}

export interface InterludeWsOptions {
  /** The largest message accepted; a bigger one closes the socket with 1009. */
  maxPayload: number;
  /** Seconds between pings; a socket that missed the previous pong is terminated. */
  pingSeconds: number;
  /** Open sockets one address may hold; the handshake of one more is refused with 429. */
  maxConnectionsPerAddress: number;
  /** Bytes of unfinished messages one address may have sent over all its sockets (see InboundBudget). */
  maxBufferedBytesPerAddress: number;
  trusted: TrustedProxy;
  untrustedForwardedFor: UntrustedForwardedFor;
  /** The same Host check as HTTP requests: a handshake for a name not served is refused with 421. */
  hosts: HostCheck;
}

/** Gateways serve one path of the HTTP server (`@WebSocketGateway({ path })`). */
interface GatewayOptions {
  path?: string;
}

/** Socket closed as the server shuts down (RFC 6455 "going away"). */
const GOING_AWAY = 1001;

function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?', 1)[0];
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}

function refuseUpgrade(socket: Duplex, status: string, detail?: string): void {
  const body = detail === undefined ? '' : JSON.stringify({ detail });
  const type = detail === undefined ? '' : 'Content-Type: application/json\r\n';
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\n${type}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Sockets that have not answered the last ping; pongs remove them (one shared listener, no closures). */
const unanswered = new WeakSet<WebSocket>();
function heard(this: WebSocket): void {
  unanswered.delete(this);
}

/**
 * A protocol error (a frame over the size limit, invalid UTF-8) has already closed the socket with its
 * code (1009, 1007); without a listener it would be thrown at the process.
 */
function ignoreProtocolError(): void {}

/**
 * Plain WebSocket (the `ws` library) on the HTTP server's own port, for gateways that speak JSON
 * messages discriminated by `type`. Unlike `WsAdapter` it routes on `type`, never drops a frame
 * silently (frames it cannot route go to the gateway's INVALID_FRAME handler), keeps a connection
 * cheap (no per-client observables), and keeps sockets alive with pings.
 */
export class InterludeWsAdapter extends AbstractWsAdapter {
  private readonly logger = new Logger('WebSocket');

  constructor(
    app: INestApplicationContext,
    private readonly options: InterludeWsOptions,
  ) {
    super(app);
  }

  create(port: number, gateway: GatewayOptions = {}): WebSocketServer {
    if (port !== 0) throw new Error('WebSocket gateways share the HTTP server: declare them without a port');
    const path = pathOf(gateway.path);
    const server = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxPayload,
      perMessageDeflate: false,
    });
    const http = this.httpServer as Server;
    const perAddress = new OpenCounter(this.options.maxConnectionsPerAddress);
    // Never below one whole message: a client sending the largest one allowed is not refused alone.
    const budget = new InboundBudget(
      Math.max(this.options.maxBufferedBytesPerAddress, this.options.maxPayload + 14),
    );
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const { hosts } = this.options;
      if (!hosts.allows(req.headers.host)) {
        return refuseUpgrade(socket, '421 Misdirected Request', hosts.detail(req.headers.host));
      }
      if (pathOf(req.url) !== path) return refuseUpgrade(socket, '404 Not Found');
      this.options.untrustedForwardedFor.check(req);
      const address = addressOf(req, this.options.trusted);
      if (!perAddress.tryOpen(address)) return refuseUpgrade(socket, '429 Too Many Requests');
      let counted = true;
      const release = () => {
        if (counted) perAddress.close(address);
        counted = false;
      };
      socket.once('close', release);
      server.handleUpgrade(req, socket, head, (ws) => {
        ws.once('close', release);
        budget.track(ws, socket, address);
        server.emit('connection', ws, req);
      });
    };
    http.on('upgrade', onUpgrade);
    const pinger = setInterval(() => {
      for (const ws of server.clients) {
        if (unanswered.has(ws)) {
          ws.terminate();
          continue;
        }
        unanswered.add(ws);
        ws.ping();
      }
    }, this.options.pingSeconds * 1000);
    pinger.unref();
    server.on('connection', (ws: WebSocket) => ws.on('pong', heard).on('error', ignoreProtocolError));
    server.once('close', () => {
      clearInterval(pinger);
      http.off('upgrade', onUpgrade);
    });
    return server;
  }

  override bindClientDisconnect(client: WebSocket, callback: () => void): void {
    client.once('close', callback);
  }

  bindMessageHandlers(client: WebSocket, handlers: WsMessageHandler[]): void {
    const invalid = handlers.find((h) => h.message === INVALID_FRAME);
    const reject = (frame: InvalidFrame) => this.dispatch(invalid, frame);
    client.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) {
        return reject({ code: 'invalid_message', details: 'Binary frames are not accepted: send JSON text' });
      }
      let message: unknown;
      try {
        message = JSON.parse(data.toString());
      } catch (err) {
        return reject({ code: 'invalid_message', details: `Not valid JSON: ${(err as Error).message}` });
      }
      if (message === null || typeof message !== 'object' || Array.isArray(message)) {
        return reject({ code: 'invalid_message', details: 'A message must be a JSON object' });
      }
      if (jsonDepth(message) > MAX_JSON_DEPTH) {
        return reject({
          code: 'invalid_message',
          details: `JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
        });
      }
      const type = (message as { type?: unknown }).type;
      if (typeof type !== 'string') {
        return reject({ code: 'invalid_message', details: 'The message has no "type" string' });
      }
      const handler = type === INVALID_FRAME ? undefined : handlers.find((h) => h.message === type);
      if (!handler) {
        const known = handlers.filter((h) => h !== invalid).map((h) => h.message);
        return reject({
          code: 'invalid_message_type',
          details: `Unknown message type "${type}"; expected one of: ${known.join(', ')}`,
        });
      }
      this.dispatch(handler, message);
    });
  }

  /**
   * Gateway handlers own their errors; anything that still escapes is logged, never thrown at `ws`.
   * With an interceptor bound (a global one included), Nest hands back an Observable that runs the
   * handler only once subscribed to, as Nest's own adapters do.
   */
  private dispatch(handler: WsMessageHandler | undefined, data: unknown): void {
    if (!handler) return;
    const failed = (err: unknown) => this.failed(err);
    try {
      const result: unknown = handler.callback(data);
      if (result instanceof Promise) {
        result.then((value: unknown) => {
          if (isObservable(value)) value.subscribe({ error: failed });
        }, failed);
      }
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    this.logger.error(`A WebSocket message handler failed: ${(err as Error)?.stack ?? String(err)}`);
  }

  override async close(server: WebSocketServer): Promise<void> {
    for (const ws of server.clients) ws.close(GOING_AWAY, 'Server shutting down');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    for (const ws of server.clients) ws.terminate();
  }
}
