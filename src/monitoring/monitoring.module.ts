import { Module, type DynamicModule } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { RequestPipeline } from '../core/http/request-pipeline';
import { DatabaseModule } from '../db/database.module';
import { ExecutionCounts } from './execution-counts';
import { ExecutionsModule } from '../executions/executions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { MonitorController } from './monitor.controller';
import { MonitorUsersService } from './monitor-users.service';
import { NoReplicaActivity, RedisReplicaActivity, ReplicaActivity } from './replica-activity';
import { pickAdapter } from '../core/adapters';
import { BackingRedis } from '../redis/backing-redis';
import { closeConnectionsWhileStopping, ConnectionDrain } from './draining';
import { ReadinessService } from './readiness.service';
import { requestTracking } from './request-tracking';
import { UserActivityService } from './user-activity.service';

/**
 * Health, readiness, Prometheus metrics and (when enabled) per-user monitoring. Counts every request,
 * after the core middleware has identified its caller.
 */
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
      providers: [
        ExecutionCounts,
        MetricsService,
        UserActivityService,
        ReadinessService,
        ConnectionDrain,
        ...(options.perUserMonitoring
          ? [
              MonitorUsersService,
              {
                provide: ReplicaActivity,
                inject: [ServerConfig, BackingRedis],
                useFactory: (config: ServerConfig, redis: BackingRedis) =>
                  pickAdapter<ReplicaActivity>('general.executions.store', config.general.executions.store, {
                    memory: () => new NoReplicaActivity(),
                    postgres: () => new RedisReplicaActivity(redis),
                  }),
              },
            ]
          : []),
      ],
      exports: [MetricsService, ReadinessService, UserActivityService],
    };
  }

  constructor(
    metrics: MetricsService,
    activity: UserActivityService,
    config: ServerConfig,
    readiness: ReadinessService,
    pipeline: RequestPipeline,
  ) {
    const perUser = config.general.enable_per_user_monitoring;
    pipeline.use(
      'monitoring',
      closeConnectionsWhileStopping(readiness),
      requestTracking(metrics, perUser ? activity : undefined),
    );
  }
}
