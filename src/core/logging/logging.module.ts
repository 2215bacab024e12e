import { Global, Inject, Module, Optional, type DynamicModule } from '@nestjs/common';
import { RequestPipeline } from '../http/request-pipeline';
import type { LogSink, LoggingOptions } from './http-logging';
import { requestLogger } from './request-logger';
import { RequestLog } from './request-log';

const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');

/**
 * Request logging. Its middleware runs first of all middleware (RequestPipeline's `logging` stage), so
 * requests refused before routing (413, malformed JSON, CORS) are logged too. Nest's own `Logger` is
 * pointed at the same pino logger by `createApp`.
 */
@Global()
@Module({})
export class LoggingModule {
  /** No logging: RequestLog still exists for the faces, and records ids for nobody. */
  static silent(): DynamicModule {
    return { module: LoggingModule, providers: [RequestLog], exports: [RequestLog] };
  }

  static forRoot(sink: LogSink, options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      providers: [
        RequestLog,
        { provide: REQUEST_LOGGER, useValue: requestLogger(sink, options.oauthCallbackPath) },
      ],
      exports: [RequestLog],
    };
  }

  constructor(
    @Optional() pipeline?: RequestPipeline,
    @Optional() @Inject(REQUEST_LOGGER) requests?: ReturnType<typeof requestLogger>,
  ) {
    if (requests) pipeline?.use('logging', requests);
  }
}
