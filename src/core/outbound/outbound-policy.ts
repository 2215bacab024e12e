import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { redactUrl } from './redact-url';

/** `general.outbound`: where tools, workflow steps and webhooks may send requests, and how much they read. */
export interface OutboundSettings {
  /** Host names (`*.example.com` for subdomains), IPs or CIDRs allowed although private or loopback. */
  allow_hosts: string[];
  max_response_bytes: number;
  timeout_seconds: number;
}

export const DEFAULT_OUTBOUND: OutboundSettings = {
  allow_hosts: [],
  max_response_bytes: 10 * 1024 * 1024,
  timeout_seconds: 30,
};

/** A request refused by the policy or cut short by its limits; the message is safe to show a caller. */
export class OutboundError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundError';
  }
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** IPv4-compatible IPv6 (RFC 4291 2.5.5.1, deprecated): ipaddr.js calls `::7f00:1` unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** NAT64's well-known prefix (RFC 6052): the IPv4 address in its last 32 bits is where it goes. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/**
 * Private, loopback, link-local, unique-local, unspecified and other special ranges (169.254.169.254,
 * 127/8, 10/8, 172.16/12, 192.168/16, 0.0.0.0, ::1, fc00::/7, fe80::/10…) are refused unless listed in
 * `allow_hosts`; public unicast addresses are allowed. IPv6 forms that carry an IPv4 address: IPv4-mapped
 * (`::ffff:0:0/96`) and NAT64 (`64:ff9b::/96`) are judged as that IPv4 address; IPv4-compatible
 * (`::/96`), 6to4 (`2002::/16`), Teredo (`2001::/32`) and local NAT64 (`64:ff9b:1::/48`) are refused
 * whole, as are every range ipaddr.js does not call unicast (multicast, discard `100::/64`,
 * documentation `2001:db8::/32`, site-local…). The address is checked when the connection is made,
 * after DNS, so a public name that resolves to a private address is refused too.
 */
export class OutboundPolicy {
  readonly settings: OutboundSettings;
  private readonly names: string[] = [];
  private readonly ranges: Range[] = [];

  constructor(settings: Partial<OutboundSettings> = {}) {
    this.settings = { ...DEFAULT_OUTBOUND, ...settings };
    for (const entry of this.settings.allow_hosts.map((h) => h.trim().toLowerCase())) {
      if (entry.includes('/') && ipaddr.isValidCIDR(entry)) this.ranges.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.isValid(entry)) {
        const address = ipaddr.process(entry);
        this.ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else this.names.push(entry.replace(/\.$/, ''));
    }
  }

  /** Whether the host name itself is listed (its addresses are then not checked). */
  nameAllowed(hostname: string): boolean {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return this.names.some((n) => n === host || (n.startsWith('*.') && host.endsWith(n.slice(1))));
  }

  addressAllowed(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const given = ipaddr.process(address);
    const target = given.kind() === 'ipv6' && given.match(NAT64) ? embeddedIpv4(given as ipaddr.IPv6) : given;
    const compatible = target.kind() === 'ipv6' && target.match(IPV4_COMPATIBLE);
    if (target.range() === 'unicast' && !compatible) return true;
    return [given, target].some((a) =>
      this.ranges.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits)),
    );
  }

  /**
   * Refuses a URL that is not http(s) or whose host is a refused IP literal. A host name is checked
   * later, at connect time, through `lookupFor` (literals never go through DNS).
   */
  checkUrl(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundError(`${redactUrl(url)} is not an http(s) URL`);
    }
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (ipaddr.isValid(host) && !this.addressAllowed(host) && !this.nameAllowed(host)) {
      throw this.refused(host, host);
    }
  }

  /** A DNS lookup for `http.request` that refuses the connection when an address is not allowed. */
  lookupFor(hostname: string): LookupFunction | undefined {
    if (this.nameAllowed(hostname)) return undefined;
    return (host, options, callback) => {
      dnsLookup(host, options, (err, address: string | LookupAddress[], family?: number) => {
        if (err) return callback(err, address as string, family);
        const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
        const refused = addresses.find((a) => !this.addressAllowed(a));
        if (refused) return callback(this.refused(host, refused) as NodeJS.ErrnoException, '', 0);
        callback(null, address as string, family);
      });
    };
  }

  private refused(host: string, address: string): OutboundError {
    const at = host === address ? address : `${host} (${address})`;
    return new OutboundError(
      `requests to ${at} are refused: a private, loopback or link-local address (allow it in general.outbound.allow_hosts)`,
    );
  }
}

function embeddedIpv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  return ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
}
