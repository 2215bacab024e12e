import { requires } from '../../../test/utils/requires';
import { ReplicaServices } from '../../../test/utils/replica-services';
import { RedisExecutionCancels } from './execution-cancels';

requires('redis')('Redis cancel requests', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  it('a cancel asked on one process reaches every other, with its reason', async () => {
    const prefix = services.newPrefix();
    const heard: string[][] = [];
    let bothHeard!: () => void;
    const both = new Promise<void>((resolve) => (bothHeard = resolve));
    for (const name of ['a', 'c']) {
      const cancels = new RedisExecutionCancels(await services.redis(prefix));
      await cancels.listen((id, reason) => {
        if (heard.push([name, id, reason]) === 2) bothHeard();
      });
    }
    const b = new RedisExecutionCancels(await services.redis(prefix));
    expect(await b.request('e1', 'cancelled by client')).toBe(true);
    await both;
    expect(heard.sort()).toEqual([
      ['a', 'e1', 'cancelled by client'],
      ['c', 'e1', 'cancelled by client'],
    ]);
  });
});
