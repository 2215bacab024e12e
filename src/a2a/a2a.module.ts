import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { mountAt, mounted } from '../core/http/route-mount';
import { ExecutionsModule } from '../executions/executions.module';
import { A2aCard } from './a2a-card';
import { A2aController } from './a2a.controller';
import { A2aTasks } from './a2a-tasks';
import { AgentCardController } from './agent-card.controller';

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
      imports: [ExecutionsModule],
      controllers: [A2aController],
      providers: [A2aTasks, A2aCard],
    });
    return {
      module: A2aModule,
      imports: mounted([rpc]),
      controllers: [AgentCardController],
      providers: [A2aCard],
    };
  }
}
