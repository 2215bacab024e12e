import { Module, type DynamicModule } from '@nestjs/common';
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
import { mountAt, mounted } from '../core/http/route-mount';

/** OpenAI's Responses API, mounted at `general.front_end.responses_path` (left out when it is null). */
@Module({})
export class ResponsesModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = config.settings.general.front_end.responses_path;
    if (path === null) return { module: ResponsesModule };
    const routes = mountAt(path, 'ResponsesRoutes', {
      imports: [ExecutionsModule, DatabaseModule],
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
    });
    return { module: ResponsesModule, imports: mounted([routes]) };
  }
}
