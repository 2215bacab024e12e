import { Global, Module, type DynamicModule } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { RequestLog } from './request-log';

/**
 * Routes Nest's `Logger` through pino (JSON lines) and binds each request's logger to the code that
 * handles it. The per-request middleware itself is mounted first in `createApp` (`httpLogger`), so
 * requests refused before routing (413, malformed JSON) are logged too; hence `useExisting`.
 *
 * nestjs-pino keeps one root logger per process for lines logged outside a request: with several apps
 * in one process (tests), those go to the first app's destination.
 */
@Global()
@Module({})
export class LoggingModule {
  /** No logging: RequestLog still exists for the faces, and records ids for nobody. */
  static silent(): DynamicModule {
    return { module: LoggingModule, providers: [RequestLog], exports: [RequestLog] };
  }

  static forRoot(logger: Logger): DynamicModule {
    return {
      module: LoggingModule,
      imports: [LoggerModule.forRoot({ pinoHttp: { logger }, useExisting: true })],
      providers: [RequestLog],
      exports: [RequestLog],
    };
  }
}
