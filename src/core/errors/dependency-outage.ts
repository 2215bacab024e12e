/**
 * Whether `err` says that a server Interlude depends on (PostgreSQL, Redis) is down or unreachable,
 * rather than that a request was wrong: such a failure is a 503 with `Retry-After`, never a 500.
 * Read from the error and its causes: Node's socket codes, PostgreSQL's connection and shutdown
 * SQLSTATEs (class 08, 57P01–57P03), and what node-postgres and ioredis say when a connection is lost.
 */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
const POSTGRES_CODES = /^(08\d{3}|57P0[123])$/;
const CLIENT_MESSAGES = [
  /^Connection terminated/, // node-postgres: the server or the network closed the connection
  /^timeout exceeded when trying to connect/, // node-postgres pool: connectionTimeoutMillis passed
  /^Query read timeout$/, // node-postgres: query_timeout passed (a connection that hangs)
  /^Command timed out$/, // ioredis: commandTimeout passed (a connection that hangs, or a reconnect)
  /^Client has encountered a connection error/, // node-postgres: a client already broken
  /^Client was closed and is not queryable/, // node-postgres: closed after its query timed out
  /^Connection is closed/, // ioredis: the connection is down and commands are not queued
  /^Stream isn't writeable/, // ioredis: offline, with its offline queue off
  /^Reached the max retries per request limit/, // ioredis: MaxRetriesPerRequestError
];

/** Seconds a client is told to wait before it retries a request that met an outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** Read by shape, not `instanceof`: a socket error is made by Node's own Error, not always this realm's. */
export function isDependencyOutage(err: unknown, depth = 0): boolean {
  if (typeof err !== 'object' || err === null || depth > 5) return false;
  const { name, message, code, cause, errors } = err as ErrorLike;
  if (typeof code === 'string' && (SOCKET_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
  if (name === 'MaxRetriesPerRequestError') return true;
  if (typeof message === 'string' && CLIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isDependencyOutage(e, depth + 1))) return true;
  return isDependencyOutage(cause, depth + 1);
}
