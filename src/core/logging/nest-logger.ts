import type { LoggerService } from '@nestjs/common';
import type { Level, Logger } from 'pino';

/** Nest's built-in exception handlers call `error(message, stack, context)`. */
const STACK = /\n\s*at /;

/**
 * Nest's own start-up narration: each module initialised, each controller and route mapped, each
 * gateway message subscribed, "successfully started" (over a hundred lines). Debug, so that at the
 * default level start-up says only what a person acts on; their warnings and errors are kept.
 */
const NEST_STARTUP = new Set([
  'NestFactory',
  'NestApplication',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'WebSocketsController',
]);

/**
 * Nest's `Logger` on the application's pino logger: the last optional parameter is the context (as
 * Nest passes it), an `Error` or an object becomes fields. The request's ids come from the logger's
 * mixin, so nothing here is per request.
 */
export class NestPinoLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }
  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }
  log(message: unknown, ...params: unknown[]): void {
    const context = params[params.length - 1];
    const level = typeof context === 'string' && NEST_STARTUP.has(context) ? 'debug' : 'info';
    this.write(level, message, params);
  }
  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }
  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params);
  }
  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params);
  }

  private write(level: Level, message: unknown, params: unknown[]): void {
    if (!this.logger.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    const rest = params.length > 0 ? params.slice(0, -1) : params;
    if (params.length > 0) fields.context = params[params.length - 1];
    if (message instanceof Error) {
      fields.err = message;
      this.logger[level](fields, ...(rest as []));
    } else if (typeof message === 'object' && message !== null) {
      this.logger[level](Object.assign(fields, message), ...(rest as []));
    } else if (
      level === 'error' &&
      typeof message === 'string' &&
      rest.length === 1 &&
      typeof rest[0] === 'string' &&
      STACK.test(rest[0])
    ) {
      const err = new Error(message);
      err.stack = rest[0];
      fields.err = err;
      this.logger[level](fields);
    } else {
      this.logger[level](fields, String(message), ...(rest as []));
    }
  }
}
