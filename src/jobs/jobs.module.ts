import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import type { Routes } from '../core/http/route-paths';
import { DatabaseModule } from '../db/database.module';
import { ExecutionsModule } from '../executions/executions.module';
import {
  AsyncJobListController,
  AsyncJobsController,
  LegacyAsyncJobsController,
} from './async-jobs.controller';
import { AsyncJobsService } from './async-jobs.service';
import { EvaluateController } from './evaluate.controller';
import { JobEvents } from './job-events';
import { JobExpiry } from './job-expiry';
import { jobQueueProviders } from './job-queue.provider';
import { JobRunner } from './job-runner';
import { JobStore } from './job.store';
import { JobWebhook } from './job-webhook';
import { EvaluationModule } from './evaluation/evaluation.module';
import { mountAt, mounted } from '../core/http/route-mount';

/**
 * The job rows, the runner and the webhook: what a server and a worker both need. The evaluation
 * library gives the runner what an evaluation job runs.
 */
@Module({
  imports: [DatabaseModule, ExecutionsModule, EvaluationModule],
  providers: [JobStore, JobEvents, JobWebhook, JobRunner],
  exports: [JobStore, JobEvents, JobRunner],
})
export class JobsCoreModule {}

/** The async job routes of the server, on the queue `general.async.queue` names. */
@Module({})
export class JobsServiceModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: JobsServiceModule,
      imports: [JobsCoreModule],
      providers: [...jobQueueProviders(config.settings.general.async.queue), AsyncJobsService, JobExpiry],
      exports: [AsyncJobsService],
    };
  }
}

/**
 * Async jobs and the evaluation endpoint: `/v1/workflow/async…` and `/generate/async…` (the configured
 * workflow paths plus `/async`), `/evaluate…`.
 */
@Module({})
export class JobsModule {
  static forRoot(config: AppConfig, routes: Routes): DynamicModule {
    const service = JobsServiceModule.forRoot(config);
    const imports = [service];
    const mounts = [
      // `<workflow path>/async…`
      ...(routes.workflow
        ? [
            mountAt(routes.workflow, 'WorkflowAsyncRoutes', {
              imports,
              controllers: [AsyncJobsController, AsyncJobListController],
            }),
          ]
        : []),
      // `<legacy workflow path>/async…`: NeMo Agent Toolkit's legacy routes (submit and poll).
      ...(routes.legacyWorkflow
        ? [
            mountAt(routes.legacyWorkflow, 'LegacyAsyncRoutes', {
              imports,
              controllers: [LegacyAsyncJobsController],
            }),
          ]
        : []),
      // `/evaluate…` (at `front_end.evaluate.path`).
      ...(routes.evaluate
        ? [mountAt(routes.evaluate, 'EvaluateRoutes', { imports, controllers: [EvaluateController] })]
        : []),
    ];
    return { module: JobsModule, imports: [service, ...mounted(mounts)] };
  }
}
