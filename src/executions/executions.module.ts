import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { ConnectionCount } from '../core/connection-count';
import { interactionAdapters } from '../interactions/interaction-adapters';
import { InteractionService } from '../interactions/interaction.service';
import { ExecutionService } from './execution.service';
import { FaceRenderers } from './face-renderers';
import { executionAdapters } from './execution-adapters';
import { ExecutionStore } from './execution.store';
import { WorkflowInstances } from './workflow-instances';
import { oauthAdapters } from '../oauth/oauth-adapters';
import { OAuthService } from '../oauth/oauth.service';
import { TraceOwners } from './trace-owners';

/**
 * The engine and its rendezvous: executions and interactions share the store, so they are wired in
 * one module (their code lives in executions/ and interactions/).
 */
@Module({
  imports: [DatabaseModule],
  providers: [
    ...executionAdapters,
    ...interactionAdapters,
    ...oauthAdapters,
    InteractionService,
    WorkflowInstances,
    OAuthService,
    ExecutionService,
    FaceRenderers,
    ConnectionCount,
    TraceOwners,
  ],
  exports: [
    ConnectionCount,
    ExecutionService,
    ExecutionStore,
    FaceRenderers,
    InteractionService,
    WorkflowInstances,
    OAuthService,
    TraceOwners,
  ],
})
export class ExecutionsModule {}
