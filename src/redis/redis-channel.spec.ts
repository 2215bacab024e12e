import { requires } from '../../test/utils/requires';
import {
  connectionsNamed,
  killConnections,
  ReplicaServices,
  waitFor,
} from '../../test/utils/replica-services';
import { RedisChannel } from './redis-channel';

requires('redis')('RedisChannel', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  /** Two replicas on one prefix, each with the channel and what it heard. */
  async function twoReplicas(maxChars = 1024) {
    const prefix = services.newPrefix();
    const warnings: string[] = [];
    const open = async () => {
      const redis = await services.redis(prefix);
      const channel = new RedisChannel(redis, {
        name: 'news',
        maxChars,
        logger: { warn: (message: string) => warnings.push(message) },
        what: 'item of news',
      });
      const heard: unknown[] = [];
      await channel.subscribe((value) => {
        if (value === 'throw') throw new Error('the receiver refused it');
        heard.push(value);
      });
      return { redis, channel, heard };
    };
    return { prefix, warnings, a: await open(), b: await open() };
  }

  /** Resolves once `heard` holds `count` messages. */
  const hearing = (heard: unknown[], count: number) =>
    waitFor(`${count} messages`, async () => (heard.length >= count ? heard : undefined));

  it('a message published on one replica reaches every replica, parsed, on a channel under the prefix', async () => {
    const { prefix, a, b } = await twoReplicas();
    expect(a.channel.name).toBe(`${prefix}news`);
    await a.channel.publish({ state: 's1', ok: true });
    await b.channel.publish([1, 'two']);
    expect(await hearing(a.heard, 2)).toEqual([{ state: 's1', ok: true }, [1, 'two']]);
    expect(await hearing(b.heard, 2)).toEqual([{ state: 's1', ok: true }, [1, 'two']]);
  });

  it('a replica under another prefix hears nothing', async () => {
    const { a } = await twoReplicas();
    const other = await twoReplicas();
    // One subscriber connection hears messages in the order Redis took them: 'for other' would come first.
    await other.a.channel.publish('for other');
    await a.channel.publish('for a');
    expect(await hearing(a.heard, 1)).toEqual(['for a']);
    expect(await hearing(other.b.heard, 1)).toEqual(['for other']);
  });

  it('drops an over-long message unread; reports one it cannot read, and hears the next', async () => {
    const { warnings, a, b } = await twoReplicas(64);
    const publish = (raw: string) => a.redis.client.publish(a.channel.name, raw);
    await publish(JSON.stringify('x'.repeat(100)));
    await publish('{not json');
    await a.channel.publish('throw');
    await a.channel.publish('after');
    expect(await hearing(a.heard, 1)).toEqual(['after']);
    expect(await hearing(b.heard, 1)).toEqual(['after']);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Ignored a malformed item of news: .*JSON/),
        'Ignored a malformed item of news: the receiver refused it',
      ]),
    );
    expect(warnings).toHaveLength(4); // two per replica; the over-long one is not reported
  });

  it('hears what is published after its subscriber connection was lost', async () => {
    const { prefix, a, b } = await twoReplicas();
    const subscribers = async () =>
      (await connectionsNamed(services.redisUrl, `${prefix}subscriber`)).map((c) => c.id);
    const before = await subscribers();
    expect(before).toHaveLength(2);
    await killConnections(services.redisUrl, before);
    await waitFor('the subscribers to be back', async () => {
      await a.channel.publish('again');
      return a.heard.length > 0 && b.heard.length > 0 ? true : undefined;
    });
    expect(a.heard[0]).toBe('again');
    expect(b.heard[0]).toBe('again');
    const after = await subscribers();
    expect(after).toHaveLength(2);
    expect(after.filter((id) => before.includes(id))).toEqual([]);
  });
});
