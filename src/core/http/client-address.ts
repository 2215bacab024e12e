import type { IncomingMessage } from 'node:http';
import { Logger } from '@nestjs/common';
import ipaddr from 'ipaddr.js';

/** Whether an address belongs to a proxy whose X-Forwarded-For we believe. */
export type TrustedProxy = (address: string) => boolean;

const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  try {
    return ipaddr.process(address.trim());
  } catch {
    return undefined;
  }
}

/**
 * `general.front_end.trust_proxy` as a predicate: addresses and CIDR ranges, or `loopback`,
 * `linklocal`, `uniquelocal` (Express's names). Empty: no proxy is trusted.
 */
export function trustedProxies(entries: string[]): TrustedProxy {
  const ranges = entries.flatMap(
    (entry) => NAMED[entry] ?? [entry.includes('/') ? entry : `${entry}/${entry.includes(':') ? 128 : 32}`],
  );
  const cidrs = ranges.map((range) => {
    try {
      const [address, bits] = ipaddr.parseCIDR(range);
      return [
        address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
          ? (address as ipaddr.IPv6).toIPv4Address()
          : address,
        bits,
      ] as const;
    } catch {
      throw new Error(
        `general.front_end.trust_proxy: "${range}" is not an IP address, a CIDR range or loopback/linklocal/uniquelocal`,
      );
    }
  });
  if (cidrs.length === 0) return () => false;
  return (address) => {
    const ip = parsed(address);
    return ip !== undefined && cidrs.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
  };
}

const PEER = Symbol('interlude.peerAddress');
const PEER_TRUST = Symbol('interlude.peerTrusted');

type Peer = IncomingMessage['socket'] & {
  [PEER]?: string;
  /** Whether `trusted` trusts the peer: the check and its answer, kept per connection. */
  [PEER_TRUST]?: { trusted: TrustedProxy; value: boolean };
};

/** The socket's peer in canonical form, worked out once per connection (keep-alive reuses it). */
function peerOf(req: IncomingMessage): string {
  const socket = req.socket as Peer;
  if (socket[PEER] === undefined) {
    const peer = socket.remoteAddress ?? 'unknown';
    socket[PEER] = parsed(peer)?.toString() ?? peer;
  }
  return socket[PEER];
}

/** Whether the socket's peer is a proxy `trusted` names, worked out once per connection too. */
function peerTrusted(req: IncomingMessage, trusted: TrustedProxy): boolean {
  const socket = req.socket as Peer;
  const known = socket[PEER_TRUST];
  if (known?.trusted === trusted) return known.value;
  const value = trusted(peerOf(req));
  socket[PEER_TRUST] = { trusted, value };
  return value;
}

/**
 * The address a request comes from: the socket's peer, or, when that peer is a trusted proxy, the
 * nearest untrusted hop of X-Forwarded-For (what Express's `req.ip` gives with `trust proxy`).
 */
export function clientAddress(req: IncomingMessage, trusted: TrustedProxy): string {
  let address = peerOf(req);
  if (!peerTrusted(req, trusted)) return address;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').reverse();
  for (const hop of hops) {
    const ip = parsed(hop);
    if (!ip) return address;
    address = ip.toString();
    if (!trusted(address)) return address;
  }
  return address;
}

/**
 * Says once, at warn, that a peer `trust_proxy` does not name sent X-Forwarded-For. The header is
 * ignored then, as it must be (anyone can write it), but when that peer is the deployment's own proxy
 * every client behind it shares the proxy's address, and one of them can use up a per-address limit
 * for all.
 */
export class UntrustedForwardedFor {
  private warned = false;
  private readonly logger = new Logger('HTTP');

  constructor(private readonly trusted: TrustedProxy) {}

  check(req: IncomingMessage): void {
    if (this.warned || req.headers['x-forwarded-for'] === undefined) return;
    if (peerTrusted(req, this.trusted)) return;
    const peer = peerOf(req);
    this.warned = true;
    this.logger.warn(
      `X-Forwarded-For from ${peer} ignored: general.front_end.trust_proxy does not name that peer, so ` +
        `per-address limits count every client behind it as ${peer}. If it is your proxy, add it to ` +
        'trust_proxy (an address, a CIDR range, or loopback / linklocal / uniquelocal). Said once.',
    );
  }
}
