import { eventLogContract } from '../event-log/event-log.contract';
import { EventLogBudget } from '../event-log/event-log-budget';
import { MemoryEventLogs } from '../event-log/execution-event-log';
import { executionStoreContract } from './execution-store.contract';
import { MemoryExecutionStore } from './memory-execution.store';
import { journalContract } from '../durability/journal.contract';
import { MemoryJournal } from '../durability/journal';

executionStoreContract('memory', () => new MemoryExecutionStore());
eventLogContract(
  'memory',
  (bounds = { perExecution: 1024 * 1024, total: 64 * 1024 * 1024 }) =>
    new MemoryEventLogs({ maxBytes: bounds.perExecution, budget: new EventLogBudget(bounds.total) }),
);
journalContract('memory', () => new MemoryJournal());
