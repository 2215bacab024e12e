import {
  Global,
  Logger,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import type { RequestHandler } from 'express';
import { ConnectionCount } from './connection-count';
import { httpPipeline, HttpSettings } from './http/http-pipeline';
import { RequestPipeline } from './http/request-pipeline';
import { ALL_ROUTES } from './http/route-paths';
import { IdentityGuard } from './identity/identity.guard';
import { identityMiddleware } from './identity/identity.middleware';
import { IdentityResolver } from './identity/identity.resolver';
import { ExecutionSpanEnds } from './tracing/execution-span-ends';

/**
 * Who is asking (for every HTTP route and the socket handshake), the open-connection count, the
 * middleware of the HTTP server (headers, CORS, body, proxies, stream caps, then identity), mounted
 * with every other module's as one, through RequestPipeline, and the event bus the lifecycle events
 * (core/events) travel on, for the server and the job worker alike.
 */
@Global()
@Module({
  // No wildcards: an emit is then one map lookup and the listeners' calls (the engine emits per request).
  imports: [EventEmitterModule.forRoot({ wildcard: false })],
  providers: [
    IdentityResolver,
    ConnectionCount,
    { provide: APP_GUARD, useClass: IdentityGuard },
    RequestPipeline,
    ExecutionSpanEnds,
  ],
  exports: [IdentityResolver, ConnectionCount, RequestPipeline],
})
export class CoreModule implements NestModule {
  /**
   * With the HTTP settings from config: the whole pipeline, and the settings for the WebSocket face
   * (Host check, origins, proxies). Without (`CoreModule`): identity only.
   */
  static forRoot(http: HttpSettings): DynamicModule {
    return {
      module: CoreModule,
      providers: [{ provide: HttpSettings, useValue: http }],
      exports: [HttpSettings],
    };
  }

  constructor(
    resolver: IdentityResolver,
    private readonly pipeline: RequestPipeline,
    @Optional() http?: HttpSettings,
  ) {
    pipeline.use('core', ...(http ? httpPipeline(http) : []), identityMiddleware(resolver) as RequestHandler);
    const warning = http?.hosts.startupWarning;
    if (warning) new Logger('HTTP').warn(warning);
  }

  /** Every module's middleware (RequestPipeline), mounted as one. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(this.pipeline.handle).forRoutes(ALL_ROUTES);
  }
}
