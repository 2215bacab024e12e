import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { InProcessInteractionBroker, InteractionBroker } from './interaction.broker';

/** The interaction broker, by `general.executions.store`. */
export const interactionAdapters: Provider[] = [
  {
    provide: InteractionBroker,
    inject: [ServerConfig],
    useFactory: (config: ServerConfig) =>
      pickAdapter<InteractionBroker>('general.executions.store', config.general.executions.store, {
        memory: () => new InProcessInteractionBroker(),
      }),
  },
];
