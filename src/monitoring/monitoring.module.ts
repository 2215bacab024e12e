import { Module, type DynamicModule } from '@nestjs/common';
import { DatabaseModule } from '../db/database.module';
import { ExecutionsModule } from '../executions/executions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { MonitorController } from './monitor.controller';
import { ReadinessService } from './readiness.service';
import { UserActivityService } from './user-activity.service';

/** Health, readiness, Prometheus metrics and (when enabled) per-user monitoring. */
@Module({})
export class MonitoringModule {
  static forRoot(options: { perUserMonitoring: boolean }): DynamicModule {
    return {
      module: MonitoringModule,
      imports: [ExecutionsModule, OAuthModule, DatabaseModule],
      controllers: [
        HealthController,
        MetricsController,
        ...(options.perUserMonitoring ? [MonitorController] : []),
      ],
      providers: [MetricsService, UserActivityService, ReadinessService],
      exports: [MetricsService, ReadinessService, UserActivityService],
    };
  }
}
