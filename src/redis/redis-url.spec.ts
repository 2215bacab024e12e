import { checkRedisUrl, redactRedisUrl } from './redis-url';

describe('redis_url', () => {
  it('accepts redis:// and rediss:// URLs with credentials and a database', () => {
    for (const url of [
      'redis://127.0.0.1:6380/2',
      'rediss://me:p%40ss@cache.example',
      'redis://[::1]:6379',
    ]) {
      expect(checkRedisUrl(url)).toBe(url);
    }
  });

  it('refuses what is not a redis URL, or a database that is not a number', () => {
    expect(() => checkRedisUrl('http://x')).toThrow('redis_url must start with redis://');
    expect(() => checkRedisUrl('redis://x/abc')).toThrow('must be a number');
    expect(() => checkRedisUrl('not a url')).toThrow('not a valid URL');
  });

  it('hides passwords in logs', () => {
    expect(redactRedisUrl('redis://me:secret@host:6379')).toBe('redis://me:***@host:6379');
    expect(redactRedisUrl('rediss://:secret@host/1')).toBe('rediss://:***@host/1');
    expect(redactRedisUrl('redis://host:6379')).toBe('redis://host:6379');
    expect(redactRedisUrl('redis://me:se cret@with@host')).not.toContain('cret');
  });
});
