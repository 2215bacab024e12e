import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { RequestHandler } from 'express';
import type { RequestMiddleware } from '../http/request-middleware';
import type { LogSink, LoggingOptions } from './http-logging';
import { requestLogger } from './request-logger';
import { RequestLog } from './request-log';

/**
 * The request logger as middleware, mounted by the composition root first of all (`mountAsOne`), so
 * requests refused before routing (413, malformed JSON, CORS) are logged too.
 */
export class RequestLogging implements RequestMiddleware {
  constructor(readonly handlers: readonly RequestHandler[]) {}
}

/**
 * Request logging: `RequestLog` for the faces' log fields and, unless silent, `RequestLogging`. Nest's
 * own `Logger` is pointed at the same pino logger by `createApp`.
 */
@Global()
@Module({})
export class LoggingModule {
  /** No logging: RequestLog still exists for the faces, and records ids for nobody. */
  static silent(): DynamicModule {
    return { module: LoggingModule, providers: [RequestLog], exports: [RequestLog] };
  }

  static forRoot(sink: LogSink, options: LoggingOptions): DynamicModule {
    const logging = new RequestLogging([requestLogger(sink, options.oauthCallbackPath) as RequestHandler]);
    return {
      module: LoggingModule,
      providers: [RequestLog, { provide: RequestLogging, useValue: logging }],
      exports: [RequestLog, RequestLogging],
    };
  }
}
