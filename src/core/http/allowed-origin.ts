import type { CorsConfig } from '../../config/config.schema';

/**
 * Whether a browser page at `origin` may open a WebSocket here (RFC 6455 §10.2): browsers send
 * cookies on cross-site handshakes, so a page elsewhere could act as the user. Allowed: no Origin (a
 * non-browser client), this server's own origin, and the CORS origins (`*`, a listed one, or a full
 * match of allow_origin_regex). `null` (sandboxed frames, file pages) is never allowed.
 */
export function originAllowed(
  cors: CorsConfig,
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
  if (origin === 'null' || parsed.origin === 'null') return false;
  if (host !== undefined && parsed.host === host.toLowerCase()) return true;
  if (cors.allow_origins.includes('*')) return true;
  if (cors.allow_origins.some((o) => o.replace(/\/+$/, '').toLowerCase() === parsed.origin)) return true;
  return cors.allow_origin_regex ? new RegExp(`^(?:${cors.allow_origin_regex})$`).test(origin) : false;
}
