import {
  Module,
  type DynamicModule,
  type MiddlewareConsumer,
  type ModuleMetadata,
  type NestModule,
  type Provider,
  type Type,
} from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test } from '@nestjs/testing';
import { httpSettings } from '../../src/app.module';
import type { AppConfig } from '../../src/config/config.loader';
import { ServerConfigModule } from '../../src/config/server-config.module';
import { CoreModule } from '../../src/core/core.module';
import { AppExceptionFilter } from '../../src/core/http/app-exception.filter';
import { HttpMiddleware } from '../../src/core/http/http-pipeline';
import { mountAsOne } from '../../src/core/http/request-middleware';
import { configFrom, ECHO_YAML } from './test-app';

export interface SlimApp {
  app: NestExpressApplication;
  url: string;
  close(): Promise<void>;
}

export interface SlimAppOptions {
  controllers?: Type[];
  /** Modules that bring controllers of their own: a face's mounts under its configured paths. */
  imports?: ModuleMetadata['imports'];
  /** The controllers' collaborators: fakes, or the real services over memory adapters. */
  providers?: Provider[];
  /** Modules the imported ones use, replaced (the engine behind a face by a fake). */
  replace?: [Type, DynamicModule][];
  /** Body limits, identity and the route table come from it; the echo workflow's by default. */
  config?: AppConfig;
}

/** CoreModule's middleware, mounted as AppModule mounts it (`mountAsOne`). */
@Module({})
class CoreMiddlewareMount implements NestModule {
  constructor(private readonly http: HttpMiddleware) {}

  configure(consumer: MiddlewareConsumer): void {
    mountAsOne(consumer, [this.http]);
  }
}

/**
 * A few controllers in a testing module, with what createApp applies that a route's 4xx answers
 * depend on: CoreModule's middleware (the JSON body parser and its limits, identity) and guard, the
 * exception filter with the route table read from the router (404/405). No engine, no other face, no database.
 */
export async function slimApp({
  controllers = [],
  imports = [],
  providers = [],
  replace = [],
  config = configFrom(ECHO_YAML),
}: SlimAppOptions): Promise<SlimApp> {
  const frontEnd = config.settings.general.front_end;
  let builder = Test.createTestingModule({
    imports: [
      ServerConfigModule.forRoot(config),
      CoreModule.forRoot(httpSettings(frontEnd)),
      CoreMiddlewareMount,
      ...imports,
    ],
    controllers,
    providers: [{ provide: APP_FILTER, useClass: AppExceptionFilter }, ...providers],
  });
  for (const [module, by] of replace) builder = builder.overrideModule(module).useModule(by);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>({ bodyParser: false, logger: false });
  app.set('query parser', 'simple');
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, close: () => app.close() };
}
