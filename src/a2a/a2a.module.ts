import { Logger, Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { mountAt, mounted } from '../core/http/route-mount';
import { ServerConfig } from '../config/server-config';
import { pickAdapter } from '../core/adapters';
import { Database } from '../db/database';
import { DatabaseModule } from '../db/database.module';
import { postgresOf } from '../executions/execution-adapters';
import { ExecutionsModule } from '../executions/executions.module';
import { ExecutionStore } from '../executions/store/execution.store';
import { TokenCipher, tokenKeyFrom } from '../oauth/token-cipher';
import { A2aTaskStore, MemoryA2aTaskStore } from './a2a-task-store';
import { PostgresA2aTaskStore } from './postgres-a2a-task-store';
import { PushConfigs } from './push-configs';
import { TaskContexts } from './task-contexts';
import { TaskPushes } from './task-pushes';
import { TaskWatchers } from './task-watchers';
import { A2aCard } from './a2a-card';
import { A2aController } from './a2a.controller';
import { A2aTasks } from './a2a-tasks';
import { AgentCardController } from './agent-card.controller';

/**
 * What seals push configs' credentials and tokens on the shared store: the key of
 * `general.executions.token_key_env` (the OAuth tokens' key). Without it no config with secrets is taken.
 */
function pushSecretsCipher(server: ServerConfig): TokenCipher | undefined {
  const name = server.general.executions.token_key_env;
  if (process.env[name]?.trim()) return new TokenCipher(tokenKeyFrom(name, process.env));
  new Logger('A2aModule').warn(
    `${name} is not set: A2A push notification configs with credentials or a token are refused (they are stored sealed with that key)`,
  );
  return undefined;
}

/**
 * The A2A face: the JSON-RPC endpoint at `general.front_end.a2a_path` and the agent card at
 * `/.well-known/agent-card.json`; both left out when the path is null.
 */
@Module({})
export class A2aModule {
  static forRoot(config: AppConfig): DynamicModule {
    const path = config.settings.general.front_end.a2a_path;
    if (path === null) return { module: A2aModule };
    const rpc = mountAt(path, 'A2aRoutes', {
      imports: [ExecutionsModule, DatabaseModule],
      controllers: [A2aController],
      providers: [
        A2aTasks,
        A2aCard,
        PushConfigs,
        TaskPushes,
        TaskContexts,
        TaskWatchers,
        {
          provide: A2aTaskStore,
          inject: [ServerConfig, Database, ExecutionStore],
          useFactory: (server: ServerConfig, database: Database, records: ExecutionStore) =>
            pickAdapter<A2aTaskStore>('general.executions.store', server.general.executions.store, {
              memory: () => new MemoryA2aTaskStore(async (id) => (await records.peek(id)) !== undefined),
              postgres: () => new PostgresA2aTaskStore(postgresOf(database).db, pushSecretsCipher(server)),
            }),
        },
      ],
    });
    return {
      module: A2aModule,
      imports: mounted([rpc]),
      controllers: [AgentCardController],
      providers: [A2aCard],
    };
  }
}
