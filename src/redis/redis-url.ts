/**
 * Checks a `redis://[user:password@]host[:port][/db]` or `rediss://…` URL before ioredis (which parses
 * it itself: TLS for rediss://, AUTH, SELECT) gets it, so a bad one fails start-up with a clear reason
 * instead of a connection that SELECTs `NaN`. Returns the URL.
 */
export function checkRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('redis_url is not a valid URL (use redis://host:port or rediss://host:port)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new Error('redis_url must start with redis:// or rediss://');
  }
  const db = parsed.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d{1,2}$/.test(db)) throw new Error(`redis_url database "${db}" must be a number`);
  return url;
}

/** The URL with its password hidden, for logs, errors and readiness reports. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (!parsed.password) return url;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    // Not a URL: hide whatever sits between "user:" and the last "@".
    return url.replace(/^(rediss?:\/\/[^:/@]*:).*@/, '$1***@');
  }
}
