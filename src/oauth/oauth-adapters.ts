import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { Database } from '../db/database';
import { MemoryPendingOAuthFlows, PendingOAuthFlows } from './pending-oauth-flows';
import { PostgresPendingOAuthFlows } from './postgres-pending-oauth-flows';

/** The pending OAuth flows, by `general.executions.store`. */
export const oauthAdapters: Provider[] = [
  {
    provide: PendingOAuthFlows,
    inject: [ServerConfig, Database],
    useFactory: (config: ServerConfig, database: Database) =>
      pickAdapter<PendingOAuthFlows>('general.executions.store', config.general.executions.store, {
        memory: () => new MemoryPendingOAuthFlows(),
        postgres: () => {
          if (database.dialect !== 'postgres') {
            throw new Error('general.executions.store: postgres needs general.db_url to be postgres://…');
          }
          return new PostgresPendingOAuthFlows(database.db);
        },
      }),
  },
];
