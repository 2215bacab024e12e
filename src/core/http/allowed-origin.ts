import type { CorsConfig } from './cors.config';

/**
 * Whether the CORS settings allow a page at `origin`: `*`, a listed origin, or a full match of
 * allow_origin_regex (a prefix match would let `https://app.example.com.evil.test` in). The opaque
 * origin `null` (sandboxed frames, `file:` pages, some redirects) never is: anyone can send it.
 */
export function corsOriginMatcher(cors: CorsConfig): (origin: string) => boolean {
  const listed = new Set(cors.allow_origins.map((o) => o.replace(/\/+$/, '').toLowerCase()));
  const pattern = cors.allow_origin_regex ? new RegExp(`^(?:${cors.allow_origin_regex})$`) : undefined;
  const any = listed.has('*');
  return (origin) =>
    origin !== 'null' && (any || listed.has(origin.toLowerCase()) || pattern?.test(origin) === true);
}

/**
 * Whether a browser page at `origin` may open a WebSocket here (RFC 6455 §10.2): browsers send
 * cookies on cross-site handshakes, so a page elsewhere could act as the user. Allowed: no Origin (a
 * non-browser client), this server's own origin, and the CORS origins.
 */
export function originAllowed(
  allowedByCors: (origin: string) => boolean,
  origin: string | undefined,
  host: string | undefined,
): boolean {
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (parsed.origin === 'null') return false;
  if (host !== undefined && parsed.host === host.toLowerCase()) return true;
  return allowedByCors(origin);
}
