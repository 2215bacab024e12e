import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { MemoryPendingOAuthFlows, PendingOAuthFlows } from './pending-oauth-flows';

/** The pending OAuth flows, by `general.executions.store`. */
export const oauthAdapters: Provider[] = [
  {
    provide: PendingOAuthFlows,
    inject: [ServerConfig],
    useFactory: (config: ServerConfig) =>
      pickAdapter<PendingOAuthFlows>('general.executions.store', config.general.executions.store, {
        memory: () => new MemoryPendingOAuthFlows(),
      }),
  },
];
