import { Global, Logger, Module, Optional, type DynamicModule } from '@nestjs/common';
import { APP_GUARD, APP_PIPE } from '@nestjs/core';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { ConnectionCount } from './connection-count';
import { HttpMiddleware, HttpSettings } from './http/http-pipeline';
import { RouteTable } from './http/route-table';
import { IdentityGuard } from './identity/identity.guard';
import { IdentityResolver } from './identity/identity.resolver';
import { JsonBodyPipe } from './validation/body.pipes';
import { ExecutionSpanEnds } from './tracing/execution-span-ends';
import { RequestTraceGuard } from './tracing/request-trace.guard';

/**
 * Who is asking (IdentityGuard, for every HTTP route; the gateway's handshake uses the same
 * resolver), the open-connection count, the route table, the middleware of the HTTP server
 * (headers, Host check, CORS, body, proxies, stream caps), and the event bus the lifecycle events
 * (core/events) travel on, for the server and the job worker alike.
 */
@Global()
@Module({
  // No wildcards: an emit is then one map lookup and the listeners' calls (the engine emits per request).
  imports: [EventEmitterModule.forRoot({ wildcard: false })],
  providers: [
    IdentityResolver,
    ConnectionCount,
    RouteTable,
    // In this order: the trace's log fields name the caller IdentityGuard resolved.
    { provide: APP_GUARD, useClass: IdentityGuard },
    { provide: APP_GUARD, useClass: RequestTraceGuard },
    { provide: APP_PIPE, useClass: JsonBodyPipe },
    ExecutionSpanEnds,
  ],
  exports: [IdentityResolver, ConnectionCount, RouteTable],
})
export class CoreModule {
  /**
   * With the HTTP settings from config: the middleware, and the settings for the WebSocket face
   * (Host check, origins, proxies). Without (`CoreModule`): identity and the route table only.
   */
  static forRoot(http: HttpSettings): DynamicModule {
    return {
      module: CoreModule,
      providers: [{ provide: HttpSettings, useValue: http }, HttpMiddleware],
      exports: [HttpSettings, HttpMiddleware],
    };
  }

  constructor(@Optional() http?: HttpSettings) {
    const warning = http?.hosts.startupWarning;
    if (warning) new Logger('HTTP').warn(warning);
  }
}
