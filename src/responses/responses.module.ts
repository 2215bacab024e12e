import { Module, type DynamicModule } from '@nestjs/common';
import { RouterModule } from '@nestjs/core';
import type { AppConfig } from '../config/config.loader';
import { ServerConfig } from '../config/server-config';
import { pickAdapter } from '../core/adapters';
import { Database } from '../db/database';
import { DatabaseModule } from '../db/database.module';
import { postgresOf } from '../executions/execution-adapters';
import { ExecutionsModule } from '../executions/executions.module';
import { PostgresResponsesStore } from './postgres-responses-store';
import { ResponsesController } from './responses.controller';
import { ResponsesFace } from './responses-face';
import { ResponsesService } from './responses.service';
import { MemoryResponsesStore, ResponsesStore } from './responses-store';
import { StoredResponses } from './stored-responses';

/** OpenAI's Responses API, mounted at `general.front_end.responses_path` (left out when it is null). */
@Module({})
export class ResponsesModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = config.settings.general.front_end.responses_path;
    if (path === null) return { module: ResponsesModule };
    return {
      module: ResponsesModule,
      imports: [ExecutionsModule, DatabaseModule, RouterModule.register([{ path, module: ResponsesModule }])],
      controllers: [ResponsesController],
      providers: [
        ResponsesFace,
        ResponsesService,
        StoredResponses,
        {
          provide: ResponsesStore,
          inject: [ServerConfig, Database],
          useFactory: (server: ServerConfig, database: Database) =>
            pickAdapter<ResponsesStore>('general.executions.store', server.general.executions.store, {
              memory: () => new MemoryResponsesStore(),
              postgres: () => new PostgresResponsesStore(postgresOf(database).db),
            }),
        },
      ],
    };
  }
}
