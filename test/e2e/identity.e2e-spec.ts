import http from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';
import { natUserId } from '../../src/core/identity/user-id';
import { WorkflowInstances } from '../../src/executions/engine/workflow-instances';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const COUNTER = 'workflow:\n  _type: per_user_counter\n  per_user: true\n';

async function hs256(claims: Record<string, unknown>, opts: { exp?: string | number; secret?: string } = {}) {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (opts.exp !== undefined) jwt = jwt.setExpirationTime(opts.exp);
  return jwt.sign(new TextEncoder().encode(opts.secret ?? SECRET));
}

function unsigned(claims: Record<string, unknown>): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
}

function whoami(t: TestApp, headers: Record<string, string>) {
  return postJson(`${t.url}/v1/workflow`, { input_message: 'who am i' }, headers);
}

// Asserted identity (nothing is verified: JWTs are only decoded) is NeMo Agent Toolkit's model; with a
// JWT key configured, cookies, API keys and Basic name nobody (security-identity.e2e-spec.ts).
describe('who is asking, asserted identity: NeMo Agent Toolkit user ids', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(`general:\n  auth:\n    jwt: { verify: false }\n${COUNTER}`)));
  afterAll(() => t.close());

  const count = (headers: Record<string, string>) =>
    postJson(`${t.url}/v1/workflow`, { action: 'get' }, headers);

  it.each([
    ['cookie nat-session=alice', { cookie: 'nat-session=alice' }, '7b031fd4-714b-598e-b755-a517d069edc5'],
    ['API key as Bearer', { authorization: 'Bearer nvapi-abc123' }, '9b659960-9370-5efe-a456-e27505c2b7ce'],
    ['API key as X-API-Key', { 'x-api-key': 'nvapi-abc123' }, '9b659960-9370-5efe-a456-e27505c2b7ce'],
    [
      'Basic alice:s3cret',
      { authorization: `Basic ${Buffer.from('alice:s3cret').toString('base64')}` },
      'acc6fc5a-2d86-52ef-b55f-6e20b1bbc2ce',
    ],
  ])('%s → the user id NeMo Agent Toolkit derives', async (_name, headers, userId) => {
    const res = await count(headers);
    expect(res.status).toBe(200);
    expect(res.json.user_id).toBe(userId);
  });

  it('a JWT with sub "user-123" → 4cb70924-7641-5fa4-af14-de06c4d6ca2c', async () => {
    const res = await count({ authorization: `Bearer ${await hs256({ sub: 'user-123' })}` });
    expect(res.json.user_id).toBe('4cb70924-7641-5fa4-af14-de06c4d6ca2c');
  });

  it('a JWT without sub uses email, then preferred_username', async () => {
    const byEmail = await count({ authorization: `Bearer ${await hs256({ email: 'user-123' })}` });
    expect(byEmail.json.user_id).toBe('4cb70924-7641-5fa4-af14-de06c4d6ca2c');
    const byName = await count({
      authorization: `Bearer ${await hs256({ sub: '', preferred_username: 'user-123' })}`,
    });
    expect(byName.json.user_id).toBe('4cb70924-7641-5fa4-af14-de06c4d6ca2c');
  });

  it('the cookie wins over a broken JWT', async () => {
    const res = await count({
      cookie: 'nat-session=alice',
      authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.e30.broken',
    });
    expect(res.status).toBe(200);
    expect(res.json.user_id).toBe('7b031fd4-714b-598e-b755-a517d069edc5');
  });

  it('Authorization wins over X-API-Key', async () => {
    const res = await count({ authorization: 'Bearer nvapi-abc123', 'x-api-key': 'other' });
    expect(res.json.user_id).toBe('9b659960-9370-5efe-a456-e27505c2b7ce');
  });
});

describe('JWT verification (HS256)', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(
        `general:\n  auth:\n    jwt: { secret: '${SECRET}', issuer: https://id.example.com, audience: [interlude] }\nworkflow: { _type: whoami }\n`,
        whoamiRegistry(),
      )),
  );
  afterAll(() => t.close());

  const good = { iss: 'https://id.example.com', aud: 'interlude' };

  it('a valid token reaches the workflow with its claims', async () => {
    const token = await hs256(
      {
        ...good,
        sub: 'u1',
        email: 'u1@example.com',
        name: 'U One',
        roles: ['admin'],
        groups: ['ops'],
        scope: 'read write',
      },
      { exp: '5m' },
    );
    const res = await whoami(t, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(res.json.identity).toMatchObject({
      source: 'jwt',
      claims: {
        sub: 'u1',
        email: 'u1@example.com',
        name: 'U One',
        roles: ['admin'],
        groups: ['ops'],
        scope: 'read write',
      },
    });
  });

  it.each([
    [
      'a bad signature',
      () => hs256({ ...good, sub: 'u1' }, { secret: 'another-secret-of-at-least-32-bytes!!' }),
      /signature/,
    ],
    ['alg none', async () => unsigned({ ...good, sub: 'u1' }), /algorithm|not accepted/],
    [
      'an expired token',
      () => hs256({ ...good, sub: 'u1' }, { exp: Math.floor(Date.now() / 1000) - 3600 }),
      /expired/,
    ],
    ['a wrong issuer', () => hs256({ ...good, iss: 'https://evil.example.com', sub: 'u1' }), /"iss" claim/],
    ['a wrong audience', () => hs256({ ...good, aud: 'someone-else', sub: 'u1' }), /"aud" claim/],
    ['a token that names no user', () => hs256({ ...good }), /sub, email or preferred_username/],
  ])('%s → 401 with WWW-Authenticate and a message, never a 500', async (_name, make, message) => {
    const res = await whoami(t, { authorization: `Bearer ${await make()}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", error_description="/);
    expect(String(res.json.detail)).toMatch(message);
  });
});

describe('JWT verification (RS256 with a JWKS served by the test)', () => {
  let jwks: http.Server;
  let jwksUrl: string;
  let privateKey: CryptoKeyLike;
  let fetches = 0;
  type CryptoKeyLike = Parameters<SignJWT['sign']>[0];
  let t: TestApp;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256');
    privateKey = pair.privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = http.createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    jwksUrl = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks.json`;
    t = await startApp(
      `general:\n  auth:\n    jwt: { jwks_url: '${jwksUrl}' }\nworkflow: { _type: whoami }\n`,
      whoamiRegistry(),
    );
  });
  afterAll(async () => {
    await t.close();
    jwks.close();
  });

  const rs256 = (claims: Record<string, unknown>, kid = 'k1') =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid }).setExpirationTime('5m').sign(privateKey);

  it('verifies tokens against the JWKS and caches the keys', async () => {
    for (const sub of ['a', 'b', 'c']) {
      const res = await whoami(t, { authorization: `Bearer ${await rs256({ sub })}` });
      expect(res.status).toBe(200);
      expect(res.json.identity).toMatchObject({ source: 'jwt', claims: { sub } });
    }
    expect(fetches).toBe(1);
  });

  it('a token signed by another key is refused', async () => {
    const other = await generateKeyPair('RS256');
    const token = await new SignJWT({ sub: 'x' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(other.privateKey);
    const res = await whoami(t, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(401);
  });

  it('an HS256 token is refused when keys come from a JWKS', async () => {
    const res = await whoami(t, { authorization: `Bearer ${await hs256({ sub: 'x' })}` });
    expect(res.status).toBe(401);
  });
});

describe('tokens are never trusted by default', () => {
  it('a Bearer JWT with no verification configured → 401 saying how to configure it', async () => {
    const t = await startApp('workflow: { _type: whoami }\n', whoamiRegistry());
    try {
      const res = await whoami(t, { authorization: `Bearer ${await hs256({ sub: 'u1' })}` });
      expect(res.status).toBe(401);
      expect(String(res.json.detail)).toMatch(/general\.auth\.jwt/);
    } finally {
      await t.close();
    }
  });

  it('verify: false decodes without verifying (an explicit opt-in)', async () => {
    const t = await startApp(
      'general:\n  auth:\n    jwt: { verify: false }\nworkflow: { _type: whoami }\n',
      whoamiRegistry(),
    );
    try {
      const res = await whoami(t, {
        authorization: `Bearer ${await hs256({ sub: 'user-123' }, { secret: 'anything-at-all-32-bytes-long-xx' })}`,
      });
      expect(res.status).toBe(200);
      expect(res.json.identity).toMatchObject({
        userId: '4cb70924-7641-5fa4-af14-de06c4d6ca2c',
        source: 'jwt',
      });
      // Decode-only still refuses a token past its lifetime and one that declares no signature.
      const expired = await hs256({ sub: 'user-123' }, { exp: Math.floor(Date.now() / 1000) - 3600 });
      for (const token of [expired, unsigned({ sub: 'user-123' })]) {
        expect((await whoami(t, { authorization: `Bearer ${token}` })).status).toBe(401);
      }
    } finally {
      await t.close();
    }
  });

  it('require_identity: anonymous requests get 401, health stays open', async () => {
    const t = await startApp(
      'general:\n  auth: { require_identity: true }\nworkflow: { _type: whoami }\n',
      whoamiRegistry(),
    );
    try {
      const anon = await whoami(t, {});
      expect(anon.status).toBe(401);
      expect(String(anon.json.detail)).toMatch(/identify/);
      expect((await fetch(`${t.url}/health`)).status).toBe(200);
      expect((await whoami(t, { cookie: 'nat-session=bob' })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('an anonymous caller is anonymous in the workflow', async () => {
    const t = await startApp('workflow: { _type: whoami }\n', whoamiRegistry());
    try {
      const res = await whoami(t, {});
      expect(res.json.identity).toEqual({ userId: null, source: 'anonymous', claims: {} });
    } finally {
      await t.close();
    }
  });
});

describe('per-user workflows', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(`general:\n  per_user_workflow_timeout: 60\n${COUNTER}`)));
  afterAll(() => t.close());

  const act = (action: string, cookie?: string) =>
    postJson(`${t.url}/v1/workflow`, { action }, cookie ? { cookie: `nat-session=${cookie}` } : {});

  it('each user counts alone, and the state lasts between requests', async () => {
    expect((await act('increment', 'ann')).json).toEqual({ count: 1, user_id: expect.any(String) });
    expect((await act('increment', 'ann')).json.count).toBe(2);
    expect((await act('increment', 'ben')).json.count).toBe(1);
    expect((await act('get', 'ann')).json.count).toBe(2);
  });

  it('refuses anonymous requests with 401 and a message', async () => {
    const res = await act('increment');
    expect(res.status).toBe(401);
    expect(String(res.json.detail)).toMatch(/per user/);
  });

  it('drops an idle instance after per_user_workflow_timeout, and the next request starts afresh', async () => {
    await act('increment', 'cat');
    await act('increment', 'cat');
    const instances = t.app.get(WorkflowInstances);
    expect(instances.sweep(Date.now() + 30_000)).toEqual([]);
    expect(instances.sweep(Date.now() + 61_000)).toContain(natUserId('cat'));
    expect((await act('get', 'cat')).json.count).toBe(0);
  });

  it('validates the input: 422 for an unknown action', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { action: 'reset' }, { cookie: 'nat-session=ann' });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'action'] })]);
  });
});
