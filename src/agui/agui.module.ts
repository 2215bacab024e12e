import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { ServerConfig } from '../config/server-config';
import { pickAdapter } from '../core/adapters';
import { Database } from '../db/database';
import { DatabaseModule } from '../db/database.module';
import { postgresOf } from '../executions/execution-adapters';
import { ExecutionsModule } from '../executions/executions.module';
import { AguiController } from './agui.controller';
import { AguiFace } from './agui-face';
import { AguiRunService } from './agui-run.service';
import { AguiThreads, MemoryAguiThreads } from './agui-threads';
import { PostgresAguiThreads } from './postgres-agui-threads';
import { mountAt, mounted } from '../core/http/route-mount';

/** The AG-UI face, mounted at `general.front_end.ag_ui_path` (left out when it is null). */
@Module({})
export class AguiModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = config.settings.general.front_end.ag_ui_path;
    if (path === null) return { module: AguiModule };
    const routes = mountAt(path, 'AguiRoutes', {
      imports: [ExecutionsModule, DatabaseModule],
      controllers: [AguiController],
      providers: [
        AguiFace,
        AguiRunService,
        {
          provide: AguiThreads,
          inject: [ServerConfig, Database],
          useFactory: (server: ServerConfig, database: Database) => {
            const max = server.frontEnd.ag_ui_max_threads_per_user;
            const ttl = server.frontEnd.ag_ui_thread_ttl_seconds * 1000;
            return pickAdapter<AguiThreads>('general.executions.store', server.general.executions.store, {
              memory: () => new MemoryAguiThreads(max, ttl),
              postgres: () =>
                new PostgresAguiThreads(postgresOf(database).db, max, ttl, Date.now, leaseMs(server)),
            });
          },
        },
      ],
    });
    return { module: AguiModule, imports: mounted([routes]) };
  }
}

/** A run's claim on a shared thread lapses as its replica's executions do (`lease_seconds`). */
function leaseMs(server: ServerConfig): number {
  return server.general.executions.lease_seconds * 1000;
}
