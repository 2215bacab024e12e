import { Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from './backing-redis';
import { RedisAudience } from './redis-audience';

/**
 * The Redis of `general.executions` (store: postgres), connected before the server listens, and the
 * executions' audiences on it.
 */
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
    // Who takes part in each execution: its record's change notices and its answers' wake-ups go to them.
    {
      provide: RedisAudience,
      inject: [BackingRedis],
      useFactory: (redis: BackingRedis) => new RedisAudience(redis, 'executions'),
    },
  ],
  exports: [BackingRedis, RedisAudience],
})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(BackingRedis) private readonly redis: BackingRedis) {}

  onApplicationShutdown(): Promise<void> {
    return this.redis.close();
  }
}
