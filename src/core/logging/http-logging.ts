import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogLevel as NestLogLevel } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';
import type { SerializedRequest } from 'pino-std-serializers';
import type { Identity } from '../identity/identity';
import { requestLogFields } from './request-log';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVELS)[number];

export interface LoggingOptions {
  level: LogLevelName;
  /** Where the JSON lines go; stdout by default. */
  destination?: DestinationStream;
  /** The OAuth callback path: its query string (authorization code, state) is never logged. */
  oauthCallbackPath: string;
}

/** Headers that carry credentials; redacted wherever a `headers` object is logged. */
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);

/**
 * The request headers a log line shows. An allow-list, because credentials travel in headers nobody
 * can enumerate (`X-Forwarded-Access-Token`, `X-Auth-Request-Access-Token`, vendor keys…).
 */
export const LOGGED_HEADERS: readonly string[] = [
  'host',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'content-type',
  'content-length',
  'connection',
  'origin',
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'traceparent',
  'last-event-id',
  'upgrade',
];
const LOGGED = new Set(LOGGED_HEADERS);

export function isLogLevel(value: string): value is LogLevelName {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export function checkedLogLevel(value: string): LogLevelName {
  if (!isLogLevel(value)) throw new Error(`Unknown log level "${value}" (${LOG_LEVELS.join(', ')})`);
  return value;
}

const NEST_TO_PINO: Record<NestLogLevel, LogLevelName> = {
  verbose: 'trace',
  debug: 'debug',
  log: 'info',
  warn: 'warn',
  error: 'error',
  fatal: 'fatal',
};

/** Nest's `logger` option as a pino level: `false` is silent, a list logs from its most verbose level. */
export function levelOfNestLevels(levels: NestLogLevel[] | false): LogLevelName {
  if (levels === false) return 'silent';
  const wanted = levels.map((l) => NEST_TO_PINO[l]);
  return [...LOG_LEVELS].reverse().find((l) => l !== 'silent' && wanted.includes(l)) ?? 'silent';
}

/** The application's one pino logger: JSON lines, credentials redacted wherever they are logged. */
export function createLogger(options: LoggingOptions): Logger {
  const redact = [...SECRET_HEADERS].flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]);
  return pino({ level: options.level, redact: { paths: redact, remove: true } }, options.destination);
}

function safeHeaders(headers: IncomingMessage['headers']): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(headers)) if (LOGGED.has(name)) kept[name] = value;
  return kept;
}

/** Whether `path` reaches the route `route` as Express matches it: any case, optional trailing slash. */
export function reachesRoute(path: string, route: string): boolean {
  const normal = (p: string) => p.replace(/\/+$/, '').toLowerCase();
  return normal(path).endsWith(normal(route));
}

/**
 * The per-request middleware (pino-http): a request id (the caller's `X-Request-Id` when it looks like
 * one, else a UUID, echoed back), one line when the response ends with the user id, execution id and
 * trace id, and a `reqId` on every line logged while the request is handled.
 */
export function httpLogger(logger: Logger, options: LoggingOptions): HttpLogger {
  const withoutSecretQuery = (url: string) => {
    const path = url.split('?', 1)[0];
    return reachesRoute(path, options.oauthCallbackPath) ? path : url;
  };
  return pinoHttp<IncomingMessage & { identity?: Identity }, ServerResponse>({
    logger,
    quietReqLogger: true,
    genReqId: (req, res) => {
      const incoming = req.headers['x-request-id'];
      const id = typeof incoming === 'string' && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
      res.setHeader('X-Request-Id', id);
      return id;
    },
    customProps: (req) => ({ userId: req.identity?.userId, ...requestLogFields(req) }),
    serializers: {
      req: (req: SerializedRequest) => ({
        id: req.id,
        method: req.method,
        url: withoutSecretQuery(req.url),
        remoteAddress: req.remoteAddress,
        headers: safeHeaders(req.headers),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
