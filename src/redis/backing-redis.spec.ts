import { requires } from '../../test/utils/requires';
import {
  connectionsNamed,
  killConnections,
  ReplicaServices,
  waitFor,
} from '../../test/utils/replica-services';
import { BackingRedis } from './backing-redis';

describe('BackingRedis start-up', () => {
  it('fails with the reason and the URL, its password hidden, when nothing answers', async () => {
    const failure = BackingRedis.open('redis://me:secret@127.0.0.1:1', 'interlude-test:');
    await expect(failure).rejects.toThrow(
      /^Cannot reach Redis at redis:\/\/me:\*\*\*@127\.0\.0\.1:1: connect ECONNREFUSED/,
    );
    await expect(failure).rejects.not.toThrow(/secret/);
  });

  it('refuses a URL that is not redis:// before connecting', async () => {
    await expect(BackingRedis.open('redis://127.0.0.1:6379/abc', 'x:')).rejects.toThrow(
      'redis_url database "abc" must be a number',
    );
  });
});

requires('redis')('BackingRedis after a lost connection', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());

  it('the command connection comes back by itself', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const [commands] = await connectionsNamed(services.redisUrl, `${prefix}commands`);
    await killConnections(services.redisUrl, [commands.id]);
    await expect(redis.client.ping()).resolves.toBe('PONG');
  });

  it('channels subscribed one after another while the subscriber connection opens all start and hear', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const heard = new Set<string>();
    // A SUBSCRIBE sent while the connection is still being set up made its ready check fail (start-up
    // failed with "Connection in subscriber mode"): one every turn of the event loop lands there.
    const subscribed: Promise<void>[] = [];
    for (let i = 0; i < 40; i++) {
      subscribed.push(redis.subscribe(`${prefix}c${i}`, () => heard.add(`c${i}`)));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(subscribed);
    for (let i = 0; i < 40; i++) await redis.client.publish(`${prefix}c${i}`, 'x');
    await waitFor('every channel to hear', async () => (heard.size === 40 ? heard : undefined));
  });

  it('the subscriber subscribes again and receives what is published after', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const channel = `${prefix}channel`;
    const got: string[] = [];
    await redis.subscribe(channel, (message) => got.push(message));
    const [before] = await connectionsNamed(services.redisUrl, `${prefix}subscriber`);
    await killConnections(services.redisUrl, [before.id]);
    // Back once a new subscriber connection is there and PUBLISH reaches it.
    await waitFor('the subscriber to be back', async () => {
      await redis.client.publish(channel, 'again');
      return got.length > 0 ? got : undefined;
    });
    expect(got[0]).toBe('again');
    const [after] = await connectionsNamed(services.redisUrl, `${prefix}subscriber`);
    expect(after.id).not.toBe(before.id);
  });

  it('readers given back are handed out again, at most 16 kept open; none whose connection is down', async () => {
    const prefix = services.newPrefix();
    const redis = await services.redis(prefix);
    const open = async () => (await connectionsNamed(services.redisUrl, `${prefix}reader`)).length;
    const readers = Array.from({ length: 20 }, () => redis.reader());
    await Promise.all(readers.map((reader) => reader.ping()));
    expect(await open()).toBe(20);
    readers.forEach((reader) => redis.returned(reader));
    await waitFor('the readers past 16 closed', async () => ((await open()) === 16 ? true : undefined));
    const again = Array.from({ length: 16 }, () => redis.reader());
    expect(new Set(again)).toEqual(new Set(readers.slice(0, 16)));
    await Promise.all(again.map((reader) => reader.ping()));
    expect(await open()).toBe(16);

    // Neither one given back while its connection is down nor one that goes down while kept is handed
    // out (each is among the last given back, the first the pool would hand out).
    const [lost, ...kept] = again;
    const down = async (reader: typeof lost) => {
      reader.disconnect();
      await waitFor('its connection closed', async () => (reader.status === 'end' ? true : undefined));
    };
    await down(lost);
    kept.forEach((reader) => redis.returned(reader));
    redis.returned(lost);
    await down(kept[kept.length - 1]);
    const next = redis.reader();
    expect(next).toBe(kept[kept.length - 2]);
  });

  it('a script is sent by its SHA1 (EVALSHA), whole again only once Redis has forgotten it', async () => {
    const redis = await services.redis(services.newPrefix());
    const script = { name: 'testDouble', keys: 1, lua: `return KEYS[1] .. ':' .. (ARGV[1] * 2)` };
    // What this connection sends (Redis's own counts are shared with every other test running now).
    const sent = jest.spyOn(redis.client, 'sendCommand');
    const names = () => sent.mock.calls.map(([command]) => (command as { name: string }).name);
    expect(await redis.runScript(script, 'k', 21)).toBe('k:42');
    sent.mockClear();
    for (let i = 0; i < 5; i++) expect(await redis.runScript(script, 'k', i)).toBe(`k:${i * 2}`);
    expect(names()).toEqual(Array(5).fill('evalsha'));
    // Redis restarted (or its scripts were flushed): the call after sends it whole, and answers.
    await redis.client.script('FLUSH');
    sent.mockClear();
    expect(await redis.runScript(script, 'k', 4)).toBe('k:8');
    expect(names()).toEqual(['evalsha', 'eval']);
    expect(() => redis.runScript({ ...script, lua: 'return 1' }, 'k')).toThrow(
      'Two Redis scripts are named testDouble',
    );
  });
});
