import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { BackingRedis } from '../redis/backing-redis';
import { Database } from '../db/database';
import { MemoryOAuthTokens, OAuthTokens } from './oauth-tokens';
import { MemoryOAuthWakeups, OAuthWakeups } from './oauth-wakeups';
import { MemoryPendingOAuthFlows, PendingOAuthFlows } from './pending-oauth-flows';
import { PostgresOAuthTokens } from './postgres-oauth-tokens';
import { PostgresPendingOAuthFlows } from './postgres-pending-oauth-flows';
import { RedisOAuthWakeups } from './redis-oauth-wakeups';
import { TokenCipher, tokenKeyFrom } from './token-cipher';

function postgresOf(database: Database): Database['db'] {
  if (database.dialect !== 'postgres') {
    throw new Error('general.executions.store: postgres needs general.db_url to be postgres://…');
  }
  return database.db;
}

/**
 * What seals tokens and PKCE verifiers at rest on the shared store. Without a provider no flow is
 * started and no token stored, so no key is asked for.
 */
function tokenCipherOf(config: ServerConfig): TokenCipher | undefined {
  if (Object.keys(config.app.settings.authentication ?? {}).length === 0) return undefined;
  return new TokenCipher(tokenKeyFrom(config.general.executions.token_key_env, process.env));
}

/** The pending OAuth flows, tokens and wake-ups, by `general.executions.store`. */
export const oauthAdapters: Provider[] = [
  {
    provide: PendingOAuthFlows,
    inject: [ServerConfig, Database],
    useFactory: (config: ServerConfig, database: Database) =>
      pickAdapter<PendingOAuthFlows>('general.executions.store', config.general.executions.store, {
        memory: () => new MemoryPendingOAuthFlows(),
        postgres: () => new PostgresPendingOAuthFlows(postgresOf(database), tokenCipherOf(config)),
      }),
  },
  {
    provide: OAuthTokens,
    inject: [ServerConfig, Database],
    useFactory: (config: ServerConfig, database: Database) =>
      pickAdapter<OAuthTokens>('general.executions.store', config.general.executions.store, {
        memory: () => new MemoryOAuthTokens(),
        postgres: () => {
          const cipher = tokenCipherOf(config);
          return cipher ? new PostgresOAuthTokens(postgresOf(database), cipher) : new MemoryOAuthTokens();
        },
      }),
  },
  {
    provide: OAuthWakeups,
    inject: [ServerConfig, BackingRedis],
    useFactory: (config: ServerConfig, redis: BackingRedis) =>
      pickAdapter<OAuthWakeups | Promise<OAuthWakeups>>(
        'general.executions.store',
        config.general.executions.store,
        {
          memory: () => new MemoryOAuthWakeups(),
          postgres: () => RedisOAuthWakeups.create(redis),
        },
      ),
  },
];
