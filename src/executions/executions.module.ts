import { Module } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { RedisModule } from '../redis/redis.module';
import { InteractionsModule } from '../interactions/interactions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { DurableRuns, executionAdapters } from './execution-adapters';
import { ExecutionService } from './engine/execution.service';
import { ExecutionStore } from './store/execution.store';
import { FaceRenderers } from './rendering/face-renderers';
import { TraceOwnerRetention } from './store/trace-owner-retention';
import { TraceOwners } from './store/trace-owners';
import { WorkflowInstances } from './engine/workflow-instances';
import { RunningExecutions } from './engine/running-executions';
import { ExecutionRunner } from './engine/execution-runner';

/** The engine: runs workflows, owns their state, keeps their events; faces register renderers here. */
@Module({
  imports: [DatabaseModule, RedisModule, InteractionsModule, OAuthModule],
  providers: [
    ...executionAdapters,
    WorkflowInstances,
    RunningExecutions,
    ExecutionRunner,
    ExecutionService,
    FaceRenderers,
    TraceOwners,
    TraceOwnerRetention,
  ],
  exports: [
    ExecutionService,
    ExecutionStore,
    FaceRenderers,
    WorkflowInstances,
    TraceOwners,
    RedisModule,
    // Its counts are on /metrics (null with the memory store).
    DurableRuns,
  ],
})
export class ExecutionsModule {}
