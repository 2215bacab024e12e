import { randomBytes } from 'node:crypto';
import { requires } from '../../test/utils/requires';
import { parseRedisUrl, redactRedisUrl, RedisClient, RedisError } from './redis-client';

describe('redis_url', () => {
  it('reads host, port, credentials, database and TLS', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6380/2')).toEqual({
      host: '127.0.0.1',
      port: 6380,
      tls: false,
      username: undefined,
      password: undefined,
      db: 2,
    });
    expect(parseRedisUrl('rediss://me:p%40ss@cache.example')).toMatchObject({
      host: 'cache.example',
      port: 6379,
      tls: true,
      username: 'me',
      password: 'p@ss',
    });
  });

  it('refuses what is not a redis URL, and hides passwords in logs', () => {
    expect(() => parseRedisUrl('http://x')).toThrow('redis_url must start with redis://');
    expect(() => parseRedisUrl('redis://x/abc')).toThrow('must be a number');
    expect(() => parseRedisUrl('not a url')).toThrow('not a valid URL');
    expect(redactRedisUrl('redis://me:secret@host:6379')).toBe('redis://me:***@host:6379');
  });
});

requires('redis')('RedisClient against a server', () => {
  const key = `interlude-test:client:${randomBytes(6).toString('hex')}`;
  const clients: RedisClient[] = [];
  const client = () => {
    const c = RedisClient.fromUrl(process.env.REDIS_URL!);
    clients.push(c);
    return c;
  };
  afterAll(async () => {
    await client().command('DEL', key, `${key}:list`);
    for (const c of clients) c.close();
  });

  it('answers commands in order, with strings, integers, arrays, nil and errors', async () => {
    const redis = client();
    const replies = await Promise.all([
      redis.command('SET', key, 'héllo\r\nworld'),
      redis.command('GET', key),
      redis.command('RPUSH', `${key}:list`, 'a', 'b'),
      redis.command('LRANGE', `${key}:list`, 0, -1),
      redis.command('GET', `${key}:none`),
    ]);
    expect(replies).toEqual(['OK', 'héllo\r\nworld', 2, ['a', 'b'], null]);
    await expect(redis.command('INCR', key)).rejects.toThrow(RedisError);
    expect(await redis.command('PING')).toBe('PONG');
  });

  it('connects again after its connection was killed, and a subscriber subscribes again', async () => {
    const admin = client();
    const redis = client();
    const id = await redis.command('CLIENT', 'ID');
    await admin.command('CLIENT', 'KILL', 'ID', id as number);
    await expect(redis.command('PING')).resolves.toBe('PONG');

    const channel = `${key}:channel`;
    const subscriber = client();
    const subscriberId = await subscriber.command('CLIENT', 'ID');
    const got: string[] = [];
    await subscriber.subscribe(channel, (m) => got.push(m));
    await admin.command('CLIENT', 'KILL', 'ID', subscriberId as number);
    // Published until the subscriber is back (it comes back by itself, within a second).
    const deadline = Date.now() + 5000;
    while (got.length === 0 && Date.now() < deadline) {
      await admin.command('PUBLISH', channel, 'again');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(got[0]).toBe('again');
  });

  it('fails a command clearly when nothing listens', async () => {
    const nowhere = new RedisClient({ host: '127.0.0.1', port: 1, tls: false }, 1000);
    clients.push(nowhere);
    await expect(nowhere.command('PING')).rejects.toThrow(/Redis 127\.0\.0\.1:1/);
  });
});
