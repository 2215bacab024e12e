import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { eventLogContract } from './event-log.contract';
import { EventLogBudget } from './event-log-budget';
import { RedisEventLogs } from './redis-event-log';

requires('redis')('Redis event logs', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  const options = {
    maxEvents: 100,
    retentionSeconds: 600,
    local: { maxBytes: 1024 * 1024, budget: new EventLogBudget(64 * 1024 * 1024) },
  };
  let prefix = '';

  eventLogContract(
    'redis',
    async () => {
      prefix = services.newPrefix();
      return new RedisEventLogs(await services.redis(prefix), options);
    },
    // Another process: a connection of its own to the same Redis, under the same prefix.
    async () => new RedisEventLogs(await services.redis(prefix), options),
  );
});
