import { Module, type DynamicModule } from '@nestjs/common';
import type { AppConfig } from '../config/config.loader';
import { ServerConfigModule } from '../config/server-config.module';
import { CoreModule } from '../core/core.module';
import { LoggingModule } from '../core/logging/logging.module';
import { JobsCoreModule } from './jobs.module';
import { JobWorker } from './job-worker';

/** What `interlude worker` runs: the engine and the job runner, no HTTP server. */
@Module({})
export class JobsWorkerModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: JobsWorkerModule,
      imports: [ServerConfigModule.forRoot(config), LoggingModule.silent(), CoreModule, JobsCoreModule],
      providers: [JobWorker],
    };
  }
}
