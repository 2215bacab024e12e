import { Logger } from '@nestjs/common';
import { FirstSeen } from '../logging/first-seen';
import type { CorsConfig } from './cors.config';
import { isLoopbackName, parseOrigin, type KnownHosts } from './known-hosts';
import type { TrustMode } from '../identity/identity.resolver';

/**
 * Whether the CORS settings allow a page at `origin`: `*`, a listed origin, or a full match of
 * allow_origin_regex (a prefix match would let `https://app.example.com.evil.test` in). Only a value
 * that is an origin (`scheme://host[:port]`) is matched: `https://evil.test/?https://a.example.com`
 * would satisfy a loose pattern. The opaque origin `null` (sandboxed frames, `file:` pages, some
 * redirects) never is: anyone can send it.
 */
export function corsOriginMatcher(cors: CorsConfig): (origin: string) => boolean {
  const listed = new Set(cors.allow_origins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const pattern = cors.allow_origin_regex ? new RegExp(`^(?:${cors.allow_origin_regex})$`) : undefined;
  const any = listed.has('*');
  return (origin) =>
    parseOrigin(origin) !== undefined && (any || listed.has(origin) || pattern?.test(origin) === true);
}

const WEB_SCHEMES = new Set(['http', 'https']);

/**
 * Which browser pages may open a WebSocket here (RFC 6455 §10.2). No CORS rule stops a socket, so
 * without this any site a developer visits could run workflows on their server with its model keys
 * and tools, and under verified identity ride the browser's credential. Allowed: no Origin (not a
 * browser); the CORS origins; a page on one of this server's own host names (the bound address,
 * `public_base_url`, `allowed_hosts`); a page served by this server itself, as the client reached it
 * (`Host` is compared only after it passed the Host check, so a rebinding page's own name never
 * vouches for it); and a page on the browser's own machine (localhost, loopback, any port: where the
 * NeMo Agent Toolkit UI's proxy runs and forwards its page's Origin from) when that machine is this
 * server's (bound to loopback) or when there is no credential to ride (asserted identity).
 */
export class SocketOrigins {
  private readonly cors: (origin: string) => boolean;
  private readonly logger = new Logger('WebSocket');
  private readonly refused = new FirstSeen();

  constructor(
    private readonly hosts: KnownHosts,
    cors: CorsConfig,
  ) {
    this.cors = corsOriginMatcher(cors);
  }

  /** Whether a page at `origin` may connect; a refused origin is logged at warn the first time. */
  allows(origin: string | undefined, host: string | undefined, mode: TrustMode): boolean {
    if (this.accepts(origin, host, mode)) return true;
    const value = origin ?? '';
    if (this.refused.first(value)) {
      const shown = JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
      this.logger.warn(
        `Refused WebSocket connections from pages at Origin ${shown}: not a page of this server ` +
          '(general.front_end.host, public_base_url, allowed_hosts) nor a CORS origin ' +
          '(general.front_end.cors.allow_origins, allow_origin_regex). List it there if that page is yours.',
      );
    }
    return false;
  }

  private accepts(origin: string | undefined, host: string | undefined, mode: TrustMode): boolean {
    if (origin === undefined) return true;
    const page = parseOrigin(origin);
    if (!page) return false;
    if (this.cors(page.origin)) return true;
    if (!WEB_SCHEMES.has(page.scheme)) return false;
    const ours = isLoopbackName(page.hostname)
      ? mode === 'asserted' || this.hosts.loopbackOnly
      : this.hosts.knows(page.hostname);
    if (ours) return true;
    return host !== undefined && this.hosts.serves(host) && page.host === host.toLowerCase();
  }
}
