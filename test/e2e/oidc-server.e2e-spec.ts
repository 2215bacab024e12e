import { createHash, randomBytes } from 'node:crypto';
import { startAuthServer, type AuthServer } from '../utils/oidc-server';
import { eventually } from '../utils/test-app';
import { WAIT_MS } from '../utils/timing';

const REDIRECT_URI = 'http://127.0.0.1:1/auth/redirect';

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authUrl(server: AuthServer, params: Record<string, string>): string {
  const url = new URL(server.authorizationUrl);
  for (const [k, v] of Object.entries({ response_type: 'code', redirect_uri: REDIRECT_URI, ...params })) {
    url.searchParams.set(k, v);
  }
  return url.href;
}

function basic(id: string, secret: string): string {
  return `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
}

async function token(
  server: AuthServer,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(server.tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function resource(server: AuthServer, accessToken: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(server.resourceUrl, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: await res.json() };
}

describe('oidc-server test harness (oidc-provider in-process)', () => {
  let server: AuthServer;

  beforeAll(async () => {
    server = await startAuthServer({
      clients: [
        { client_id: 'web', client_secret: 'web-secret', redirect_uris: [REDIRECT_URI] },
        {
          client_id: 'post',
          client_secret: 'post-secret',
          redirect_uris: [REDIRECT_URI],
          token_endpoint_auth_method: 'client_secret_post',
        },
        { client_id: 'spa', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' },
      ],
      accessTokenTtlSeconds: 2,
      requirePkce: true,
      scopes: ['read:calendar'],
    });
  });

  afterAll(async () => {
    await server.close();
  });

  it('serves discovery metadata naming its endpoints', async () => {
    const res = await fetch(`${server.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: server.authorizationUrl,
      token_endpoint: server.tokenUrl,
      code_challenge_methods_supported: ['S256'],
    });
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'read:calendar']));
  });

  it('runs the code flow with PKCE: code, tokens, resource, refresh, then skips consent the second time', async () => {
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(8).toString('hex');
    const redirect = new URL(
      await server.authorize(
        authUrl(server, {
          client_id: 'web',
          scope: 'openid read:calendar',
          state,
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        'alice',
      ),
    );
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.get('iss')).toBe(server.issuer);
    const code = redirect.searchParams.get('code');
    expect(code).toEqual(expect.any(String));
    expect(server.log.interactions.filter((i) => i.client_id === 'web').map((i) => i.prompt)).toEqual([
      'login',
      'consent',
    ]);

    const exchanged = await token(
      server,
      { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { authorization: basic('web', 'web-secret') },
    );
    expect(exchanged.status).toBe(200);
    expect(exchanged.body).toMatchObject({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      id_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 2,
    });
    expect(String(exchanged.body.scope).split(' ')).toEqual(
      expect.arrayContaining(['openid', 'read:calendar']),
    );
    const accessToken = String(exchanged.body.access_token);
    const refreshToken = String(exchanged.body.refresh_token);
    expect(server.log.tokenRequests.at(-1)).toEqual({
      grant_type: 'authorization_code',
      code_verifier: true,
      client_auth: 'client_secret_basic',
      status: 200,
    });
    expect(server.log.issued.at(-1)).toEqual({
      sub: 'alice',
      access_token: accessToken,
      refresh_token: refreshToken,
    });

    const api = await resource(server, accessToken);
    expect(api.status).toBe(200);
    expect(api.body).toEqual({
      sub: 'alice',
      scope: expect.stringContaining('read:calendar'),
      client_id: 'web',
    });
    expect(server.log.resourceCalls.at(-1)).toEqual({ token: accessToken, sub: 'alice' });
    expect((await resource(server, 'not-a-token')).status).toBe(401);
    expect(server.log.resourceCalls.at(-1)).toEqual({ token: 'not-a-token', sub: null });

    // The short TTL (2 s) lets the access token expire; the refresh token still works.
    await eventually(
      async () => expect((await resource(server, accessToken)).status).toBe(401),
      WAIT_MS,
      100,
    );
    const refreshed = await token(
      server,
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      { authorization: basic('web', 'web-secret') },
    );
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.access_token).toEqual(expect.any(String));
    expect(refreshed.body.access_token).not.toBe(accessToken);
    expect(server.log.tokenRequests.at(-1)).toMatchObject({
      grant_type: 'refresh_token',
      code_verifier: false,
    });
    expect(server.log.issued.at(-1)).toMatchObject({
      sub: 'alice',
      access_token: refreshed.body.access_token,
    });
    expect((await resource(server, String(refreshed.body.access_token))).body).toMatchObject({
      sub: 'alice',
    });

    // Second flow for the same user: provider session + existing grant, so no login and no consent page.
    const before = server.log.interactions.length;
    const second = pkcePair();
    const again = new URL(
      await server.authorize(
        authUrl(server, {
          client_id: 'web',
          scope: 'openid read:calendar',
          state: 's2',
          code_challenge: second.challenge,
          code_challenge_method: 'S256',
        }),
        'alice',
      ),
    );
    expect(server.log.interactions.length).toBe(before);
    expect(again.searchParams.get('state')).toBe('s2');
    expect(again.searchParams.get('code')).toEqual(expect.any(String));

    // The code is single use (oidc-provider also revokes the grant's tokens when a code is replayed).
    const replay = await token(
      server,
      { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI, code_verifier: verifier },
      { authorization: basic('web', 'web-secret') },
    );
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(server.log.tokenRequests.at(-1)).toMatchObject({ grant_type: 'authorization_code', status: 400 });
  });

  it('redirects with error=access_denied when the user denies consent', async () => {
    const { challenge } = pkcePair();
    const redirect = new URL(
      await server.authorize(
        authUrl(server, {
          client_id: 'web',
          scope: 'openid read:calendar',
          state: 'denied',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        }),
        'bob',
        { deny: true },
      ),
    );
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe('denied');
    expect(redirect.searchParams.has('code')).toBe(false);
  });

  it('rejects an authorization request without code_challenge when PKCE is required', async () => {
    const redirect = new URL(
      await server.authorize(
        authUrl(server, { client_id: 'web', scope: 'openid read:calendar', state: 'nopkce' }),
        'carol',
      ),
    );
    expect(redirect.searchParams.get('error')).toBe('invalid_request');
    expect(redirect.searchParams.get('error_description')).toMatch(/PKCE/);
    expect(redirect.searchParams.get('state')).toBe('nopkce');
  });

  it('supports client_secret_post and public (none) clients', async () => {
    for (const [clientId, auth] of [
      ['post', { client_id: 'post', client_secret: 'post-secret' }],
      ['spa', { client_id: 'spa' }],
    ] as const) {
      const { verifier, challenge } = pkcePair();
      const redirect = new URL(
        await server.authorize(
          authUrl(server, {
            client_id: clientId,
            scope: 'read:calendar',
            state: clientId,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
          'dave',
        ),
      );
      const code = redirect.searchParams.get('code')!;
      const exchanged = await token(server, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
        code_verifier: verifier,
        ...auth,
      });
      expect(exchanged.status).toBe(200);
      expect(exchanged.body.refresh_token).toEqual(expect.any(String));
      expect(server.log.tokenRequests.at(-1)).toMatchObject({
        client_auth: clientId === 'post' ? 'client_secret_post' : 'none',
        code_verifier: true,
      });
      const api = await resource(server, String(exchanged.body.access_token));
      expect(api.body).toEqual({ sub: 'dave', scope: 'read:calendar', client_id: clientId });
    }
  });
});

describe('oidc-server test harness with a resource indicator', () => {
  it('issues an opaque token for the protected API when the client names it as resource', async () => {
    const server = await startAuthServer({
      clients: [{ client_id: 'web', client_secret: 's', redirect_uris: [REDIRECT_URI] }],
    });
    try {
      const { verifier, challenge } = pkcePair();
      const redirect = new URL(
        await server.authorize(
          authUrl(server, {
            client_id: 'web',
            scope: 'openid read:calendar',
            resource: server.resourceUrl,
            code_challenge: challenge,
            code_challenge_method: 'S256',
          }),
          'frank',
        ),
      );
      const exchanged = await token(
        server,
        {
          grant_type: 'authorization_code',
          code: redirect.searchParams.get('code')!,
          redirect_uri: REDIRECT_URI,
          code_verifier: verifier,
          resource: server.resourceUrl,
        },
        { authorization: basic('web', 's') },
      );
      expect(exchanged.status).toBe(200);
      expect(exchanged.body.scope).toBe('read:calendar');
      const api = await resource(server, String(exchanged.body.access_token));
      expect(api.body).toEqual({ sub: 'frank', scope: 'read:calendar', client_id: 'web' });
      const refreshed = await token(
        server,
        { grant_type: 'refresh_token', refresh_token: String(exchanged.body.refresh_token) },
        { authorization: basic('web', 's') },
      );
      expect(refreshed.status).toBe(200);
      expect((await resource(server, String(refreshed.body.access_token))).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe('oidc-server test harness without required PKCE', () => {
  it('lets a confidential client run the code flow without PKCE', async () => {
    const server = await startAuthServer({
      clients: [{ client_id: 'web', client_secret: 's', redirect_uris: [REDIRECT_URI] }],
      requirePkce: false,
    });
    try {
      const redirect = new URL(
        await server.authorize(authUrl(server, { client_id: 'web', scope: 'openid', state: 'x' }), 'erin'),
      );
      const code = redirect.searchParams.get('code');
      expect(code).toEqual(expect.any(String));
      const exchanged = await token(
        server,
        { grant_type: 'authorization_code', code: code!, redirect_uri: REDIRECT_URI },
        { authorization: basic('web', 's') },
      );
      expect(exchanged.status).toBe(200);
      expect(server.log.tokenRequests).toEqual([
        {
          grant_type: 'authorization_code',
          code_verifier: false,
          client_auth: 'client_secret_basic',
          status: 200,
        },
      ]);
      expect(server.log.issued).toEqual([
        {
          sub: 'erin',
          access_token: exchanged.body.access_token,
          refresh_token: exchanged.body.refresh_token,
        },
      ]);
    } finally {
      await server.close();
    }
  });
});
