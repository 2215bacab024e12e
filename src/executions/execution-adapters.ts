import type { Provider } from '@nestjs/common';
import { pickAdapter } from '../core/adapters';
import { ServerConfig } from '../config/server-config';
import { EventLogBudget } from './event-log-budget';
import { EventLogs } from './event-log';
import { MemoryEventLogs } from './execution-event-log';
import { ExecutionStore } from './execution.store';
import { MemoryExecutionStore } from './memory-execution.store';

const STORE = 'general.executions.store';

/** The execution store and the event logs, by `general.executions.store`. */
export const executionAdapters: Provider[] = [
  {
    provide: ExecutionStore,
    inject: [ServerConfig],
    useFactory: (config: ServerConfig) =>
      pickAdapter<ExecutionStore>(STORE, config.general.executions.store, {
        memory: () => new MemoryExecutionStore(),
      }),
  },
  {
    provide: EventLogs,
    inject: [ServerConfig],
    useFactory: (config: ServerConfig) =>
      pickAdapter<EventLogs>(STORE, config.general.executions.store, {
        memory: () =>
          new MemoryEventLogs({
            maxBytes: config.general.max_event_log_bytes_per_execution,
            budget: new EventLogBudget(config.general.max_event_log_bytes),
          }),
      }),
  },
];
