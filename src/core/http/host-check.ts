import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { FirstSeen } from '../logging/first-seen';
import { KnownHosts, type KnownHostsSettings } from './known-hosts';

/** How much of a caller's Host value is repeated back or logged. */
const SHOWN = 100;
const shown = (host: string) => JSON.stringify(host.length > SHOWN ? `${host.slice(0, SHOWN)}…` : host);

/**
 * The `Host` check of every HTTP request and WebSocket handshake (`KnownHosts` says which names are
 * served). A refused one is answered 421 Misdirected Request (RFC 9110 §15.5.20: this server is not
 * the authority for the name the request was sent to, which is what happened; the request itself is
 * well formed, so not 400), with a JSON `detail` saying which setting lists names; each refused name is
 * logged at warn the first time.
 */
export class HostCheck {
  readonly hosts: KnownHosts;
  private readonly logger = new Logger('HTTP');
  private readonly refused = new FirstSeen();

  constructor(settings: KnownHostsSettings) {
    this.hosts = new KnownHosts(settings);
  }

  /** What start-up should say about this setting, if anything. */
  get startupWarning(): string | undefined {
    if (!this.hosts.unlisted) return undefined;
    return (
      'Listening on every interface with no general.front_end.allowed_hosts: any Host header is served, ' +
      'so a web page can reach this server through DNS rebinding. List the names clients use ' +
      "(allowed_hosts: [interlude, api.example.com]; localhost and IP addresses are always served), or ['*'] " +
      'to accept any on purpose.'
    );
  }

  /** Whether to serve a request with this Host; logs a refused name once. */
  allows(host: string | undefined): boolean {
    if (this.hosts.serves(host)) return true;
    if (this.refused.first(host ?? '')) {
      this.logger.warn(
        `Refused requests for Host ${shown(host ?? '')}: not a name this server answers to. ` +
          'If clients really use it, add it to general.front_end.allowed_hosts.',
      );
    }
    return false;
  }

  /** The 421 answer's body. */
  detail(host: string | undefined): string {
    return (
      `This server does not answer to Host ${shown(host ?? '')} ` +
      '(general.front_end.allowed_hosts lists the names it serves)'
    );
  }

  /** The HTTP half: runs before anything else reads the request. */
  readonly middleware = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const host = req.headers.host;
    if (this.allows(host)) return next();
    const body = JSON.stringify({ detail: this.detail(host) });
    res.writeHead(421, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };
}
