import { SignJWT } from 'jose';
import { parseConfig } from '../../config/config.loader';
import { ServerConfig } from '../../config/server-config';
import { builtinRegistry } from '../../runtime/builtin-functions';
import { hashPassword, sha256Hex } from './configured-credentials';
import type { Identity } from './identity';
import { IdentityResolver } from './identity.resolver';
import { natUserId } from './user-id';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';

function resolverFor(auth: string): IdentityResolver {
  return new IdentityResolver(
    new ServerConfig(
      parseConfig(`general:\n  auth:\n${auth}\nworkflow: { _type: echo }\n`, 'test.yml', builtinRegistry()),
    ).general.auth,
  );
}

const jwt = (sub: string, claims: Record<string, unknown> = {}) =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .sign(new TextEncoder().encode(SECRET));
const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

async function outcome(resolver: IdentityResolver, headers: Record<string, string>, session?: string) {
  try {
    return await resolver.resolve(headers, session);
  } catch (err) {
    return { refused: (err as Error).message };
  }
}

describe('IdentityResolver: asserted identity (nothing verified)', () => {
  const resolver = resolverFor('    require_identity: false');

  it('is asserted, with every source on', () => {
    expect(resolver.mode).toBe('asserted');
    expect([...resolver.sources]).toEqual(['cookie', 'jwt', 'api_key', 'basic']);
  });

  it.each([
    ['the nat-session cookie', { cookie: 'nat-session=alice' }, natUserId('alice')],
    ['the NAT UI cookie', { cookie: 'nemo-agent-toolkit-session=alice' }, natUserId('alice')],
    ['a Bearer API key', { authorization: 'Bearer k1' }, natUserId('k1')],
    ['X-API-Key', { 'x-api-key': 'k1' }, natUserId('k1')],
    ['Basic', { authorization: 'Basic YTpi' }, natUserId('YTpi')],
  ])('%s names the user with NAT’s id', async (_name, headers, userId) => {
    expect(((await outcome(resolver, headers)) as Identity).userId).toBe(userId);
  });

  it('the cookie comes first, and the first configured cookie name present wins', async () => {
    const both = { cookie: 'nemo-agent-toolkit-session=ui; nat-session=nat', authorization: 'Bearer k1' };
    expect(((await outcome(resolver, both)) as Identity).userId).toBe(natUserId('nat'));
  });

  it('a WebSocket ?session= is a session cookie, after a cookie the handshake carried', async () => {
    expect(((await outcome(resolver, {}, 'bob')) as Identity).userId).toBe(natUserId('bob'));
    const withCookie = await outcome(resolver, { cookie: 'nat-session=alice' }, 'bob');
    expect((withCookie as Identity).userId).toBe(natUserId('alice'));
  });

  it('session_cookies renames the cookies read', async () => {
    const custom = resolverFor('    session_cookies: [my-session]');
    expect(((await outcome(custom, { cookie: 'nat-session=a' })) as Identity).userId).toBeNull();
    expect(((await outcome(custom, { cookie: 'my-session=a' })) as Identity).userId).toBe(natUserId('a'));
  });
});

describe('IdentityResolver: verified identity (a JWT secret)', () => {
  const resolver = resolverFor(`    jwt: { secret: '${SECRET}' }`);

  it('is verified, and only the JWT identifies by default', () => {
    expect(resolver.mode).toBe('verified');
    expect([...resolver.sources]).toEqual(['jwt']);
  });

  it('a verified JWT subject keeps NAT’s id', async () => {
    const who = (await outcome(resolver, { authorization: `Bearer ${await jwt('admin-1')}` })) as Identity;
    expect(who).toMatchObject({ userId: natUserId('admin-1'), source: 'jwt', verified: true });
  });

  it.each([
    ['a session cookie', { cookie: 'nat-session=admin-1' }],
    ['a Bearer that is not a JWT', { authorization: 'Bearer admin-1' }],
    ['X-API-Key', { 'x-api-key': 'admin-1' }],
    ['Basic', { authorization: 'Basic admin-1' }],
  ])('%s is ignored: anonymous', async (_name, headers) => {
    expect(await outcome(resolver, headers)).toMatchObject({ userId: null, source: 'anonymous' });
  });

  it('?session= is ignored too', async () => {
    expect(await outcome(resolver, {}, 'admin-1')).toMatchObject({ userId: null });
  });

  it('a cookie neither overrides a valid JWT nor rescues a broken one', async () => {
    const good = { cookie: 'nat-session=admin-1', authorization: `Bearer ${await jwt('user-b')}` };
    expect(((await outcome(resolver, good)) as Identity).userId).toBe(natUserId('user-b'));
    const broken = { cookie: 'nat-session=admin-1', authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.broken' };
    expect(await outcome(resolver, broken)).toEqual({
      refused: expect.stringMatching(/signature|not accepted/),
    });
  });

  it('a listed unverified source gets ids of its own namespace, never a JWT subject’s', async () => {
    const mixed = resolverFor(`    jwt: { secret: '${SECRET}' }\n    sources: [jwt, cookie, api_key]`);
    const cookie = (await outcome(mixed, { cookie: 'nat-session=admin-1' })) as Identity;
    const key = (await outcome(mixed, { 'x-api-key': 'admin-1' })) as Identity;
    expect(cookie.userId).toEqual(expect.any(String));
    expect(new Set([cookie.userId, key.userId, natUserId('admin-1')]).size).toBe(3);
  });
});

describe('IdentityResolver: configured API keys and Basic users', () => {
  let resolver: IdentityResolver;
  beforeAll(async () => {
    resolver = resolverFor(
      [
        '    api_keys:',
        `      - { hash: 'sha256:${sha256Hex('key-of-ci')}', user_id: ci-bot, roles: [operator] }`,
        '    basic_users:',
        `      - { username: ann, password_hash: '${await hashPassword('pw of ann')}', user_id: ann-id }`,
      ].join('\n'),
    );
  });

  it('a listed key names its user and roles, by Bearer or X-API-Key', async () => {
    const presented: Record<string, string>[] = [
      { authorization: 'Bearer key-of-ci' },
      { 'x-api-key': 'key-of-ci' },
    ];
    for (const headers of presented) {
      expect(await outcome(resolver, headers)).toEqual({
        userId: 'ci-bot',
        source: 'api_key',
        claims: { roles: ['operator'] },
        verified: true,
      });
    }
  });

  it('any other key is refused, never hashed into a user', async () => {
    expect(await outcome(resolver, { 'x-api-key': 'admin-1' })).toEqual({
      refused: 'The API key is not accepted',
    });
  });

  it('Basic checks the password against the stored scrypt hash', async () => {
    expect(await outcome(resolver, { authorization: basic('ann', 'pw of ann') })).toMatchObject({
      userId: 'ann-id',
      source: 'basic',
      verified: true,
    });
    for (const wrong of [basic('ann', 'guess'), basic('nobody', 'pw of ann'), 'Basic admin-1']) {
      expect(await outcome(resolver, { authorization: wrong })).toEqual({
        refused: 'The username or password is not accepted',
      });
    }
  });
});

describe('general.auth config', () => {
  const load = (auth: string) => () =>
    parseConfig(`general:\n  auth:\n${auth}\nworkflow: { _type: echo }\n`, 'test.yml', builtinRegistry());

  it('refuses an API key or password stored in clear, saying the format', () => {
    expect(load('    api_keys: [{ hash: the-key, user_id: u }]')).toThrow(
      /hash must be sha256:<64 hex digits>/,
    );
    expect(load('    basic_users: [{ username: ann, password_hash: pw }]')).toThrow(
      /password_hash must be scrypt:/,
    );
  });

  it('takes jwt audience and issuer as a string or a list, and refuses an unknown source', () => {
    expect(
      load(`    jwt: { secret: '${SECRET}', audience: my-api, issuer: https://id.example.com }`),
    ).not.toThrow();
    expect(load(`    jwt: { secret: '${SECRET}', audience: [a, b], issuer: [https://x] }`)).not.toThrow();
    expect(load(`    jwt: { secret: '${SECRET}', audience: 3 }`)).toThrow(
      /audience must be a string or a list/,
    );
    expect(load('    sources: [jwt, header]')).toThrow(/sources/);
  });
});
