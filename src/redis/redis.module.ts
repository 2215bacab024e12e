import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from './backing-redis';

/** The Redis of `general.executions` (store: postgres), connected before the server listens. */
@Module({
  providers: [
    {
      provide: BackingRedis,
      inject: [ServerConfig],
      useFactory: (config: ServerConfig) => {
        const { store, redis_url, redis_key_prefix, redis_command_timeout_seconds } =
          config.general.executions;
        if (store === 'memory' || !redis_url) return BackingRedis.none();
        return BackingRedis.open(redis_url, redis_key_prefix, redis_command_timeout_seconds * 1000);
      },
    },
  ],
  exports: [BackingRedis],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(BackingRedis) private readonly redis: BackingRedis) {}

  onApplicationShutdown(): Promise<void> {
    return this.redis.close();
  }
}
