import { requires } from '../../../test/utils/requires';
import { ReplicaServices, waitFor } from '../../../test/utils/replica-services';
import { ReleasedExecutions } from './released-executions';

requires('redis')('Released executions over Redis', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  it('a stopping replica tells the others at once that it released executions', async () => {
    const redis = await services.redis(services.newPrefix());
    const released: string[] = [];
    await new ReleasedExecutions(redis).onReleased(() => released.push('told'));
    await new ReleasedExecutions(redis).tell('b');
    await waitFor('the release to be told', async () => (released.length ? true : undefined));
  });
});
