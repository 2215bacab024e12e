import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { ALL_ROUTES } from '../core/http/route-paths';
import { DatabaseModule } from '../db/database.module';
import { ExecutionsModule } from '../executions/executions.module';
import { OAuthModule } from '../oauth/oauth.module';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';
import { MonitorController } from './monitor.controller';
import { MonitorUsersService } from './monitor-users.service';
import { NoReplicaActivity, RedisReplicaActivity, ReplicaActivity } from './replica-activity';
import { pickAdapter } from '../core/adapters';
import { BackingRedis } from '../db/backing-redis';
import { closeConnectionsWhileStopping, ConnectionDrain } from './draining';
import { ReadinessService } from './readiness.service';
import { requestTracking } from './request-tracking';
import { UserActivityService } from './user-activity.service';

/**
 * Health, readiness, Prometheus metrics and (when enabled) per-user monitoring. Counts every request,
 * after the core middleware has identified its caller.
 */
@Module({})
export class MonitoringModule implements NestModule {
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
    private readonly metrics: MetricsService,
    private readonly activity: UserActivityService,
    private readonly config: ServerConfig,
    private readonly readiness: ReadinessService,
  ) {}

  configure(consumer: MiddlewareConsumer): void {
    const perUser = this.config.general.enable_per_user_monitoring;
    consumer
      .apply(
        closeConnectionsWhileStopping(this.readiness),
        requestTracking(this.metrics, perUser ? this.activity : undefined),
      )
      .forRoutes(ALL_ROUTES);
  }
}
