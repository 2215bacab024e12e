import type { LogLevel as NestLogLevel } from '@nestjs/common';
import { pino, type DestinationStream, type Logger } from 'pino';
import { requestContext } from './request-context';

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

/** The application's pino logger and the stream its lines go to (request lines are written there directly). */
export interface LogSink {
  logger: Logger;
  stream: DestinationStream;
  /** Lines are printed for a person (a terminal): request lines are written short. */
  human: boolean;
}

/** The request a line is logged for, copied: pino merges the call's own fields into what the mixin returns. */
function requestFields(): object {
  const context = requestContext.getStore();
  return context ? { ...context } : {};
}

/**
 * How a line reads on a terminal: a request as `POST /v1/workflow → 200 (3 ms)`, anything else as
 * `Context: message`, with the fields it carries (the request's ids, an error) below it.
 */
function humanMessage(log: Record<string, unknown>, messageKey: string): string {
  const msg = typeof log[messageKey] === 'string' ? (log[messageKey] as string) : '';
  const req = log.req as { method?: string; url?: string } | undefined;
  if (req?.method !== undefined) {
    const res = log.res as { statusCode?: number } | undefined;
    const line = `${req.method} ${req.url} → ${res?.statusCode} (${String(log.responseTime)} ms)`;
    return msg ? `${line} ${msg}` : line;
  }
  return typeof log.context === 'string' ? `${log.context}: ${msg}` : msg;
}

/**
 * stdout: human-readable lines on a terminal (pino-pretty, loaded only then; written as they come, so
 * they keep their order with what the CLI prints), JSON lines otherwise, written asynchronously so a
 * request never waits on the pipe.
 */
function stdoutDestination(): { stream: DestinationStream; human: boolean } {
  if (process.stdout.isTTY) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pretty = require('pino-pretty') as typeof import('pino-pretty');
    const stream = pretty.build({
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      messageFormat: humanMessage,
      ignore: 'pid,hostname,req,res,responseTime,context',
    });
    return { stream, human: true };
  }
  return { stream: pino.destination({ dest: 1, sync: false }), human: false };
}

/** The application's one pino logger: JSON lines, credentials redacted wherever they are logged. */
export function createLogger(options: LoggingOptions): LogSink {
  const redact = [...SECRET_HEADERS].flatMap((h) => [`headers["${h}"]`, `*.headers["${h}"]`]);
  const { stream, human } = options.destination
    ? { stream: options.destination, human: false }
    : stdoutDestination();
  const logger = pino(
    { level: options.level, redact: { paths: redact, remove: true }, mixin: requestFields },
    stream,
  );
  return { logger, stream, human };
}

/** Whether `path` reaches the route `route` as Express matches it: any case, optional trailing slash. */
export function reachesRoute(path: string, route: string): boolean {
  const normal = (p: string) => p.replace(/\/+$/, '').toLowerCase();
  return normal(path).endsWith(normal(route));
}
