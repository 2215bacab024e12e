import { Module, type DynamicModule } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { ServerConfig } from '../config/server-config';
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
import { ConnectionDrain } from './draining';
import { MonitoringMiddleware } from './monitoring-middleware';
import { ReadinessService } from './readiness.service';
import { ShutdownReport } from './shutdown-report';
import { UserActivityInterceptor } from './user-activity.interceptor';
import { UserActivityService } from './user-activity.service';

/**
 * Health, readiness, Prometheus metrics and (when enabled) per-user monitoring. Its middleware
 * (`MonitoringMiddleware`) is mounted by the composition root after core's; per-user activity is
 * counted by an interceptor, once IdentityGuard has identified the caller.
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
        ShutdownReport,
        MonitoringMiddleware,
        ...(options.perUserMonitoring
          ? [
              MonitorUsersService,
              { provide: APP_INTERCEPTOR, useClass: UserActivityInterceptor },
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
      exports: [MetricsService, ReadinessService, UserActivityService, MonitoringMiddleware, ShutdownReport],
    };
  }
}
