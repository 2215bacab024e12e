import { Module, type DynamicModule } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from '../redis/backing-redis';
import { ConversationLinks, MemoryConversationLinks } from './conversation-links';
import { ConversationRuns } from './conversation-runs';
import { RedisConversationLinks } from './redis-conversation-links';
import { AbandonedRuns } from './abandoned-runs';
import { RemoteRuns } from './remote-runs';
import { GatewayService } from './gateway.service';
import { createWorkflowGateway } from './workflow.gateway';
import { WsAnswers } from './ws-answers';

/** The WebSocket face at the configured path (NAT's message schema). */
@Module({})
export class GatewayModule {
  static forRoot(path: string): DynamicModule {
    return {
      module: GatewayModule,
      imports: [ExecutionsModule],
      providers: [
        GatewayService,
        WsAnswers,
        ConversationRuns,
        RemoteRuns,
        AbandonedRuns,
        {
          provide: ConversationLinks,
          inject: [ServerConfig, BackingRedis],
          useFactory: (config: ServerConfig, redis: BackingRedis) =>
            pickAdapter<ConversationLinks>('general.executions.store', config.general.executions.store, {
              memory: () => new MemoryConversationLinks(),
              postgres: () => new RedisConversationLinks(redis),
            }),
        },
        createWorkflowGateway(path),
      ],
    };
  }
}
