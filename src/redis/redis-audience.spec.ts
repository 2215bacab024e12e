import { Redis } from 'ioredis';
import { requires } from '../../test/utils/requires';
import {
  connectionsNamed,
  killConnections,
  ReplicaServices,
  waitFor,
} from '../../test/utils/replica-services';
import { RedisAudience } from './redis-audience';

requires('redis')('RedisAudience', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  /** `count` replicas on one prefix, each with its audience and what it heard. */
  async function replicas(count: number) {
    const prefix = services.newPrefix();
    const open = async () => {
      const redis = await services.redis(prefix);
      const heard: unknown[] = [];
      const gossip: unknown[] = [];
      const audience = new RedisAudience(redis, 'things');
      const options = (name: string) => ({
        name,
        maxChars: 1024,
        logger: { warn: () => undefined },
        what: 'item',
      });
      await audience.listen(options('news'), (value) => heard.push(value));
      await audience.listen(options('gossip'), (value) => gossip.push(value));
      return { redis, audience, heard, gossip };
    };
    const all = [];
    for (let i = 0; i < count; i++) all.push(await open());
    return { prefix, all };
  }

  /** Resolves once every message published before now has reached each of `replicas`. */
  const settled = async (...replicas: { redis: { delivered(): Promise<boolean> } }[]) => {
    for (const replica of replicas) expect(await replica.redis.delivered()).toBe(true);
  };

  it('tells the members of a key and no one else; the teller joins and is not told its own message', async () => {
    const { all } = await replicas(3);
    const [a, b, c] = all;
    expect(await a.audience.join('k1')).toBe(Infinity);
    expect(a.audience.joined('k1')).toBe(true);
    expect(b.audience.joined('k1')).toBe(false);
    await b.audience.tell('k1', 'news', { n: 1 });
    expect(b.audience.joined('k1')).toBe(true);
    await a.audience.tell('k1', 'news', { n: 2 });
    await b.audience.tell('k2', 'news', { n: 3 });
    await settled(a, b, c);
    expect(a.heard).toEqual([{ n: 1 }]);
    expect(b.heard).toEqual([{ n: 2 }]);
    expect(c.heard).toEqual([]);
  });

  it('a message goes to the listener of its topic only; a teller that does not join is not told later messages', async () => {
    const { all } = await replicas(3);
    const [a, b, c] = all;
    await a.audience.join('k1');
    await b.audience.tell('k1', 'gossip', 'psst', { join: false });
    expect(b.audience.joined('k1')).toBe(false);
    await a.audience.tell('k1', 'news', 'to no one');
    await c.audience.tell('k1', 'news', 'for a');
    await settled(a, b, c);
    expect(a.gossip).toEqual(['psst']);
    expect(a.heard).toEqual(['for a']);
    expect(b.heard).toEqual([]);
    expect(c.heard).toEqual([]);
  });

  it('joins of a key asked for together make one round trip', async () => {
    const { all } = await replicas(1);
    const [a] = all;
    const sent = jest.spyOn(a.redis, 'runScript');
    const [first, second] = await Promise.all([a.audience.join('k1'), a.audience.join('k1')]);
    expect(first).toBe(second);
    expect(sent).toHaveBeenCalledTimes(1);
    await a.audience.join('k2');
    expect(sent).toHaveBeenCalledTimes(2);
  });

  it('a replica joining just after a message is told how long ago it was; the audience is kept an hour after its last use', async () => {
    const { prefix, all } = await replicas(2);
    const [a, b] = all;
    await a.audience.tell('k1', 'news', { n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const since = await b.audience.join('k1');
    expect(since).toBeGreaterThanOrEqual(45);
    expect(since).toBeLessThan(1000);
    const client = new Redis(services.redisUrl);
    try {
      const ttl = await client.pttl(`${prefix}things:audience:{k1}`);
      expect(ttl).toBeGreaterThan(59 * 60 * 1000);
      expect(ttl).toBeLessThanOrEqual(60 * 60 * 1000);
    } finally {
      client.disconnect();
    }
  });

  it('remembers no membership once its subscriber connection was lost, and is told again after joining again', async () => {
    const { prefix, all } = await replicas(2);
    const [a, b] = all;
    await a.audience.join('k1');
    const subscribers = await connectionsNamed(services.redisUrl, `${prefix}subscriber`);
    await killConnections(
      services.redisUrl,
      subscribers.map((each) => each.id),
    );
    await waitFor('the membership to be forgotten', async () =>
      !a.audience.joined('k1') ? true : undefined,
    );
    await waitFor('the subscriber to be back', async () => ((await a.redis.delivered()) ? true : undefined));
    await a.audience.join('k1');
    await b.audience.tell('k1', 'news', 'again');
    await settled(a);
    expect(a.heard).toEqual(['again']);
  });
});
