import ipaddr from 'ipaddr.js';
import { ValidateBy } from 'class-validator';

/** `host` values that bind every interface: the server is meant to be reached by names we cannot know. */
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '']);

const NAME = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?$/i;

/** A host name as compared here: lower case, no brackets around IPv6, no trailing dot. */
function normal(name: string): string {
  const lower = name.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}

/** An IPv4 address in dotted-quad form or an IPv6 address (unbracketed): what browsers send for one. */
export function isIpLiteral(name: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(name) || (name.includes(':') && ipaddr.IPv6.isValid(name));
}

/** `localhost`, `*.localhost` (RFC 6761: browsers keep them on this machine) and loopback addresses. */
export function isLoopbackName(name: string): boolean {
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (!isIpLiteral(name)) return false;
  const ip = ipaddr.process(name);
  return ip.range() === 'loopback';
}

/** The name of a `Host` header (`name[:port]` or `[v6][:port]`), or undefined when it is not one. */
export function hostnameOf(header: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::\d{1,5})?$/i.exec(header);
  return match ? normal(match[1]) : undefined;
}

export interface ParsedOrigin {
  /** As sent, which is its serialisation: `scheme://host[:port]`. */
  origin: string;
  scheme: string;
  /** Without brackets or port. */
  hostname: string;
  /** With the port, as a `Host` header would carry it. */
  host: string;
}

/**
 * An `Origin` header read as what RFC 6454 says it is, `scheme://host[:port]` in the lower case
 * browsers serialise it in, or undefined: `https://evil.test/?https://a.example.com` or a value with
 * a path is not an origin, so it is never matched against a list or a pattern, nor echoed back.
 */
export function parseOrigin(value: string): ParsedOrigin | undefined {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  const [, scheme, host, port] = match;
  if (port !== undefined && Number(port) > 65535) return undefined;
  const hostname = normal(host);
  if (host.startsWith('[') && !isIpLiteral(hostname)) return undefined;
  return { origin: value, scheme, hostname, host: port === undefined ? host : `${host}:${port}` };
}

/** An `allowed_hosts` entry: a host name, `.example.com` (it and its subdomains), an IP address, or `*`. */
export function isHostPattern(entry: string): boolean {
  if (entry === '*') return true;
  const name = entry.startsWith('.') ? entry.slice(1) : entry;
  return NAME.test(name) || isIpLiteral(normal(name));
}

export const IsHostPatterns = () =>
  ValidateBy({
    name: 'isHostPatterns',
    validator: {
      validate: (value: unknown) =>
        Array.isArray(value) && value.every((e) => typeof e === 'string' && isHostPattern(e)),
      defaultMessage: () =>
        'each entry must be a host name without scheme, port or path ("api.example.com"), ' +
        '".example.com" for a domain and its subdomains, an IP address, or "*" for any',
    },
  });

export interface KnownHostsSettings {
  /** The address the server listens on (`general.front_end.host`). */
  bind: string;
  publicBaseUrl?: string;
  /** `general.front_end.allowed_hosts`. */
  allowedHosts: readonly string[];
}

/**
 * The names this server answers to, against DNS rebinding: a page of another site whose name the
 * attacker points at 127.0.0.1 reaches a developer's server with its own name in `Host`. Known: the
 * localhost names and loopback addresses, the bound address, `public_base_url`'s host and
 * `allowed_hosts`. A request naming an IP address is served too: a rebinding page always sends the
 * name it looked up, never an address.
 */
export class KnownHosts {
  /** `allowed_hosts: ['*']`, or bound to every interface with no list: any `Host` is served. */
  readonly anyHost: boolean;
  /** Bound to every interface and no `allowed_hosts` given: start-up says how to close it. */
  readonly unlisted: boolean;
  /** Bound to loopback only: every browser that reaches the server runs on its machine. */
  readonly loopbackOnly: boolean;
  private readonly names = new Set<string>();
  private readonly domains: string[] = [];

  constructor(settings: KnownHostsSettings) {
    const everyInterface = ALL_INTERFACES.has(settings.bind.trim());
    this.loopbackOnly = isLoopbackName(normal(settings.bind.trim()));
    let star = false;
    for (const entry of settings.allowedHosts) {
      if (entry === '*') star = true;
      else if (entry.startsWith('.')) this.domains.push(normal(entry.slice(1)));
      else this.names.add(normal(entry));
    }
    if (!everyInterface) this.names.add(normal(settings.bind.trim()));
    if (settings.publicBaseUrl) this.names.add(normal(new URL(settings.publicBaseUrl).hostname));
    this.unlisted = everyInterface && settings.allowedHosts.length === 0;
    this.anyHost = star || this.unlisted;
  }

  /** Whether `name` is one of this server's own (never true merely because any Host is served). */
  knows(name: string): boolean {
    return (
      isLoopbackName(name) ||
      this.names.has(name) ||
      this.domains.some((domain) => name === domain || name.endsWith(`.${domain}`))
    );
  }

  /** Whether a request carrying this `Host` header is served (no header: HTTP/1.0, never a browser). */
  serves(header: string | undefined): boolean {
    if (this.anyHost || header === undefined) return true;
    const name = hostnameOf(header);
    return name !== undefined && (isIpLiteral(name) || this.knows(name));
  }
}
