import { Module, type DynamicModule } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module';
import { ConversationRuns } from './conversation-runs';
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
      providers: [GatewayService, WsAnswers, ConversationRuns, createWorkflowGateway(path)],
    };
  }
}
