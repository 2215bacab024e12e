import { eventLogContract } from './event-log.contract';
import { EventLogBudget } from './event-log-budget';
import { MemoryEventLogs } from './execution-event-log';
import { executionStoreContract } from './execution-store.contract';
import { MemoryExecutionStore } from './memory-execution.store';
import { journalContract } from './journal.contract';
import { MemoryJournal } from './journal';

executionStoreContract('memory', () => new MemoryExecutionStore());
eventLogContract(
  'memory',
  () => new MemoryEventLogs({ maxBytes: 1024 * 1024, budget: new EventLogBudget(64 * 1024 * 1024) }),
);
journalContract('memory', () => new MemoryJournal());
