import {
  Global,
  Inject,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import type { HttpLogger } from 'pino-http';
import { ALL_ROUTES } from '../http/route-paths';
import { httpLogger, type LoggingOptions } from './http-logging';
import { RequestLog } from './request-log';

const REQUEST_LOGGER = Symbol('REQUEST_LOGGER');

/**
 * Routes Nest's `Logger` through pino (JSON lines) and binds each request's logger to the code that
 * handles it. Its request logging runs first of all middleware (this module is imported first), so
 * requests refused before routing (413, malformed JSON, CORS) are logged too; nestjs-pino's own
 * middleware then finds that request logger (`useExisting`).
 *
 * nestjs-pino keeps one root logger per process for lines logged outside a request: with several apps
 * in one process (tests), those go to the first app's destination.
 */
@Global()
@Module({})
export class LoggingModule implements NestModule {
  /** No logging: RequestLog still exists for the faces, and records ids for nobody. */
  static silent(): DynamicModule {
    return { module: LoggingModule, providers: [RequestLog], exports: [RequestLog] };
  }

  static forRoot(logger: Logger, options: LoggingOptions): DynamicModule {
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, useExisting: true })],
      providers: [RequestLog, { provide: REQUEST_LOGGER, useValue: httpLogger(logger, options) }],
      exports: [RequestLog],
    };
  }

  constructor(@Optional() @Inject(REQUEST_LOGGER) private readonly requests?: HttpLogger) {}

  configure(consumer: MiddlewareConsumer): void {
    if (this.requests) consumer.apply(this.requests).forRoutes(ALL_ROUTES);
  }
}
