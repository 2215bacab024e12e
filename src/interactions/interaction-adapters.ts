import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from '../redis/backing-redis';
import { RedisAudience } from '../redis/redis-audience';
import { InProcessInteractionBroker, InteractionBroker } from './interaction.broker';
import { RedisInteractionBroker } from './redis-interaction.broker';

/** The interaction broker, by `general.executions.store`. */
export const interactionAdapters: Provider[] = [
  {
    provide: InteractionBroker,
    inject: [ServerConfig, BackingRedis, RedisAudience],
    useFactory: (config: ServerConfig, redis: BackingRedis, audience: RedisAudience) =>
      pickAdapter<InteractionBroker | Promise<InteractionBroker>>(
        'general.executions.store',
        config.general.executions.store,
        {
          memory: () => new InProcessInteractionBroker(),
          postgres: () => RedisInteractionBroker.create(redis, audience),
        },
      ),
  },
];
