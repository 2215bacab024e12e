import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TrustedProxy } from '../core/http/client-address';

/** The session cookie the WebSocket face and every HTTP face read the user from (NAT's name). */
export const SESSION_COOKIE = 'nat-session';

const ID_BYTES = 16;
const TAG_BYTES = 16;

/**
 * The page's sessions: `<random id>.<HMAC of the id>`, both base64url, so the page recognises a value
 * it issued and replaces any other (a value planted in the browser by someone who can then claim the
 * same identity: session fixation under asserted identity). The key is derived from the token key
 * when one is set, so every replica (and the next start) recognises the same sessions; without it,
 * each process has a key of its own.
 */
export class PageSessions {
  private constructor(private readonly key: Buffer) {}

  /** `secret`: the token key variable's value, or undefined (a random key for this process). */
  static withSecret(secret: string | undefined): PageSessions {
    if (!secret) return new PageSessions(randomBytes(32));
    // Its own derived key: a session tag never doubles as anything sealed with the token key.
    const key = hkdfSync('sha256', secret, 'interlude', 'nat-session page cookie v1', 32);
    return new PageSessions(Buffer.from(key));
  }

  issue(): string {
    const id = randomBytes(ID_BYTES).toString('base64url');
    return `${id}.${this.tag(id).toString('base64url')}`;
  }

  issued(value: string | undefined): boolean {
    const parts = value?.split('.') ?? [];
    if (parts.length !== 2 || parts[0].length === 0) return false;
    const given = Buffer.from(parts[1], 'base64url');
    const expected = this.tag(parts[0]);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private tag(id: string): Buffer {
    return createHmac('sha256', this.key).update(id).digest().subarray(0, TAG_BYTES);
  }
}

/**
 * Whether the browser reached us over HTTPS, so the cookie is `Secure`: `public_base_url` says so
 * when it is set (the operator knows where the server is published); otherwise a TLS socket, or
 * `X-Forwarded-Proto: https` from a proxy listed in `trust_proxy` (its first value, as Express reads
 * it). Anyone else's `X-Forwarded-Proto` is ignored.
 */
export function reachedOverHttps(
  req: IncomingMessage,
  publicBaseUrl: string | undefined,
  trusted: TrustedProxy,
): boolean {
  if (publicBaseUrl) return publicBaseUrl.toLowerCase().startsWith('https:');
  if ((req.socket as { encrypted?: boolean }).encrypted) return true;
  const peer = req.socket.remoteAddress;
  if (peer === undefined || !trusted(peer)) return false;
  const header = req.headers['x-forwarded-proto'];
  const first = (Array.isArray(header) ? header[0] : header)?.split(',')[0];
  return first?.trim().toLowerCase() === 'https';
}
