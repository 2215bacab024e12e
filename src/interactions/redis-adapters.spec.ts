import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { interactionBrokerContract } from './interaction-broker.contract';
import { RedisInteractionBroker } from './redis-interaction.broker';

requires('redis')('Redis interaction broker', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  let prefix = '';

  interactionBrokerContract(
    'redis',
    async () => {
      prefix = services.newPrefix();
      return RedisInteractionBroker.create(await services.redis(prefix));
    },
    async () => RedisInteractionBroker.create(await services.redis(prefix)),
  );
});
