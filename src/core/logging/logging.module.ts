import {
  Global,
  Inject,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { ALL_ROUTES } from '../http/route-paths';
import type { LogSink, LoggingOptions } from './http-logging';
import { requestLogger } from './request-logger';
import { RequestLog } from './request-log';

const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');

/**
 * Request logging. Its middleware runs first of all middleware (createApp imports this module first,
 * and Nest mounts global modules' middleware first, in import order), so requests refused before
 * routing (413, malformed JSON, CORS) are logged too. Nest's own `Logger` is pointed at the same pino
 * logger by `createApp`.
 */
@Global()
@Module({})
export class LoggingModule implements NestModule {
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
    @Optional() @Inject(REQUEST_LOGGER) private readonly requests?: ReturnType<typeof requestLogger>,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    if (this.requests) consumer.apply(this.requests).forRoutes(ALL_ROUTES);
  }
}
