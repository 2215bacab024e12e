import { requires } from '../../test/utils/requires';
import { ReplicaServices } from '../../test/utils/replica-services';
import { oauthWakeupsContract } from './oauth-wakeups.contract';
import { RedisOAuthWakeups } from './redis-oauth-wakeups';

requires('redis')('Redis OAuth wake-ups', () => {
  const services = new ReplicaServices();
  let prefix = services.newPrefix();
  afterAll(() => services.cleanup());

  oauthWakeupsContract(
    'redis',
    async () => {
      prefix = services.newPrefix();
      return RedisOAuthWakeups.create(await services.redis(prefix));
    },
    async () => RedisOAuthWakeups.create(await services.redis(prefix)),
  );
});
