import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { ConnectionCount } from '../core/connection-count';
import { InProcessInteractionBroker, InteractionBroker } from '../interactions/interaction.broker';
import { InteractionService } from '../interactions/interaction.service';
import { InteractionsController } from '../interactions/interactions.controller';
import { ExecutionService } from './execution.service';
import { ExecutionStore } from './execution.store';
import { ExecutionsController } from './executions.controller';
import { MemoryExecutionStore } from './memory-execution.store';
import { WorkflowInstances } from './workflow-instances';
import { OAuthService } from '../oauth/oauth.service';
import { TraceOwners } from './trace-owners';

/**
 * The engine and its rendezvous: executions and interactions share the store, so they are wired in
 * one module (their code lives in executions/ and interactions/).
 */
@Module({
  imports: [DatabaseModule],
  controllers: [ExecutionsController, InteractionsController],
  providers: [
    { provide: ExecutionStore, useFactory: () => new MemoryExecutionStore() },
    { provide: InteractionBroker, useFactory: () => new InProcessInteractionBroker() },
    InteractionService,
    WorkflowInstances,
    OAuthService,
    ExecutionService,
    ConnectionCount,
    TraceOwners,
  ],
  exports: [
    ConnectionCount,
    ExecutionService,
    ExecutionStore,
    InteractionService,
    WorkflowInstances,
    OAuthService,
    TraceOwners,
  ],
})
export class ExecutionsModule {}
