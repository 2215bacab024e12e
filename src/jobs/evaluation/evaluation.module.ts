import { Module, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../../config/server-config';
import { ExecutionsModule } from '../../executions/executions.module';
import { DatasetEvaluationRunner } from './dataset-evaluation.runner';
import { EvaluationRunner } from './evaluation-runner';
import { RegexSandbox } from './evaluators/regex-sandbox';
import { ServedEvaluators } from './served-evaluators';

/**
 * The evaluation library: `EvaluationRunner` (what a `POST /evaluate` job runs) and the served
 * config's evaluators (what `POST /evaluate/item` scores with). Holds no routes.
 */
@Module({
  imports: [ExecutionsModule],
  providers: [
    {
      // `POST /evaluate/item`'s matches: general.sandbox's pool and short lines (429 past them).
      provide: RegexSandbox,
      inject: [ServerConfig],
      useFactory: ({ general: { sandbox } }: ServerConfig) =>
        new RegexSandbox({
          workers: sandbox.workers,
          maxQueue: sandbox.max_queue,
          maxQueuedPerCaller: sandbox.max_queued_per_caller,
        }),
    },
    { provide: EvaluationRunner, useClass: DatasetEvaluationRunner },
    ServedEvaluators,
  ],
  exports: [EvaluationRunner, ServedEvaluators],
})
export class EvaluationModule implements OnApplicationShutdown {
  constructor(private readonly regex: RegexSandbox) {}

  async onApplicationShutdown(): Promise<void> {
    await this.regex.close();
  }
}
