import {
  Global,
  Module,
  Optional,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { RequestHandler } from 'express';
import { ConnectionCount } from './connection-count';
import { composeMiddleware } from './http/compose-middleware';
import { httpPipeline, HttpSettings } from './http/http-pipeline';
import { ALL_ROUTES } from './http/route-paths';
import { IdentityGuard } from './identity/identity.guard';
import { identityMiddleware } from './identity/identity.middleware';
import { IdentityResolver } from './identity/identity.resolver';

/**
 * Who is asking (for every HTTP route and the socket handshake), the open-connection count, and the
 * middleware of the HTTP server (headers, CORS, body, proxies, stream caps, then identity).
 */
@Global()
@Module({
  providers: [IdentityResolver, ConnectionCount, { provide: APP_GUARD, useClass: IdentityGuard }],
  exports: [IdentityResolver, ConnectionCount],
})
export class CoreModule implements NestModule {
  /** With the HTTP settings from config: the whole pipeline. Without (`CoreModule`): identity only. */
  static forRoot(http: HttpSettings): DynamicModule {
    return { module: CoreModule, providers: [{ provide: HttpSettings, useValue: http }] };
  }

  constructor(
    private readonly resolver: IdentityResolver,
    @Optional() private readonly http?: HttpSettings,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const pipeline = this.http ? httpPipeline(this.http) : [];
    consumer
      .apply(composeMiddleware([...pipeline, identityMiddleware(this.resolver) as RequestHandler]))
      .forRoutes(ALL_ROUTES);
  }
}
