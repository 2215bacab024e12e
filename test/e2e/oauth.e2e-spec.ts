import { createApp } from '../../src/main';
import { OAuthBrowser } from '../utils/oauth-browser';
import { oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { configFrom, eventually, type TestApp } from '../utils/test-app';

const CLIENT_SECRET = 'client-secret-never-logged';
const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };

/** Every log line of the app, to prove no secret is ever written. */
class LogCapture {
  readonly lines: string[] = [];
  write(chunk: string): void {
    this.lines.push(chunk);
  }
}

function yaml(auth: AuthServer, provider: Record<string, unknown> = {}): string {
  const settings = oauthProvider(
    auth,
    { client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uri: REDIRECT },
    { auth_timeout_seconds: 5, ...provider },
  );
  return `
general:
  outbound: { allow_hosts: [127.0.0.1] }
authentication:
  calendar: ${JSON.stringify(settings)}
workflow:
  _type: scripted
  steps:
    - fetch: { url: '${auth.resourceUrl}', provider: calendar, save_as: me }
  output: 'Hello {{me.sub}}'
`;
}

async function start(
  auth: AuthServer,
  log: LogCapture,
  provider: Record<string, unknown> = {},
): Promise<TestApp> {
  const config = configFrom(yaml(auth, provider));
  const app = await createApp(config, { log: { level: 'info', destination: log } });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

interface OAuthPause {
  execution_id: string;
  status_url: string;
  status: string;
  auth_url: string;
  oauth_state: string;
}

/** Follows the provider's redirect back to this server's callback, as the browser would. */
async function callback(t: TestApp, redirect: string) {
  const query = new URL(redirect).search;
  const res = await fetch(`${t.url}/auth/redirect${query}`);
  return { status: res.status, headers: res.headers, html: await res.text() };
}

async function status(t: TestApp, p: OAuthPause, headers: Record<string, string>) {
  return (await (await fetch(`${t.url}${p.status_url}`, { headers })).json()) as Record<string, unknown>;
}

describe('OAuth2 authorization code flow against a real authorization server (oidc-provider)', () => {
  let auth: AuthServer;
  let t: TestApp;
  const log = new LogCapture();

  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
      accessTokenTtlSeconds: 3600,
    });
    t = await start(auth, log);
  });
  afterAll(async () => {
    await t.close();
    await auth.close();
  });

  const run = (headers: Record<string, string>) =>
    postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, headers);
  // The person's browser: it holds their session cookie and keeps the flow's binding cookie.
  const browser = (user: string, headers: Record<string, string>) =>
    OAuthBrowser.of(t.url, auth, user, headers);

  it('polling: 202 oauth_required, consent at the provider, /auth/redirect resumes the workflow as the user', async () => {
    const first = await run(ALICE);
    expect(first.status).toBe(202);
    const paused = first.json as unknown as OAuthPause;
    expect(paused).toMatchObject({
      status: 'oauth_required',
      status_url: `/executions/${paused.execution_id}`,
    });
    expect(paused.auth_url).toBe(`${REDIRECT}/start?state=${paused.oauth_state}`);
    const alice = browser('alice', ALICE);
    const authUrl = new URL(await alice.open(paused.auth_url));
    expect(authUrl.origin + authUrl.pathname).toBe(auth.authorizationUrl);
    expect(authUrl.searchParams.get('state')).toBe(paused.oauth_state);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(Buffer.from(paused.oauth_state, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(await status(t, paused, ALICE)).toMatchObject({
      status: 'oauth_required',
      auth_url: paused.auth_url,
      oauth_state: paused.oauth_state,
    });

    const back = await alice.callback(await auth.authorize(authUrl.href, 'alice'));
    expect(back.status).toBe(200);
    expect(back.headers.get('cache-control')).toBe('no-store');
    expect(back.html).toContain("postMessage({ type: 'AUTH_SUCCESS' }");
    await eventually(async () =>
      expect(await status(t, paused, ALICE)).toMatchObject({
        status: 'completed',
        result: { value: 'Hello alice' },
      }),
    );
    // the workflow's fetch reached the protected API with alice's token, obtained with PKCE
    const issued = auth.log.issued.filter((i) => i.sub === 'alice');
    expect(auth.log.resourceCalls.at(-1)).toEqual({ token: issued.at(-1)!.access_token, sub: 'alice' });
    expect(auth.log.tokenRequests.find((r) => r.grant_type === 'authorization_code')).toMatchObject({
      code_verifier: true,
      client_auth: 'client_secret_basic',
    });
  });

  it('a second execution of the same user reuses the token: no new consent, a plain 200', async () => {
    const interactions = auth.log.interactions.length;
    const again = await run(ALICE);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ value: 'Hello alice' });
    expect(auth.log.interactions.length).toBe(interactions);
  });

  it('SSE: event: oauth_required, then the stream resumes after the redirect', async () => {
    const res = await fetch(`${t.url}/v1/workflow/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...BOB },
      body: JSON.stringify({ input_message: 'x' }),
    });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes('event: oauth_required')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended before asking for authorization:\n${text}`);
      text += decoder.decode(value);
    }
    const frame = /event: oauth_required\ndata: (.*)\n/.exec(text)![1];
    const event = JSON.parse(frame) as {
      event_type: string;
      execution_id: string;
      auth_url: string;
      oauth_state: string;
    };
    expect(event).toMatchObject({
      event_type: 'oauth_required',
      execution_id: res.headers.get('x-execution-id'),
    });
    expect((await browser('bob', BOB).complete(event.auth_url)).status).toBe(200);
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain('data: {"value":"Hello bob"}');
  });

  it('two users hold two different tokens', () => {
    const [alice, bob] = ['alice', 'bob'].map(
      (sub) => auth.log.resourceCalls.find((c) => c.sub === sub)!.token,
    );
    expect(alice).toBeDefined();
    expect(bob).toBeDefined();
    expect(alice).not.toBe(bob);
  });

  it('a state used once cannot be used again: 400', async () => {
    const headers = { cookie: 'nat-session=carol' };
    const paused = (await run(headers)).json as unknown as OAuthPause;
    const carol = browser('carol', headers);
    const redirect = await carol.consent(paused.auth_url);
    expect((await carol.callback(redirect)).status).toBe(200);
    const replay = await carol.callback(redirect);
    expect(replay.status).toBe(400);
    expect(replay.html).toContain('Invalid state. Please restart the authentication process.');
    expect(replay.headers.get('cache-control')).toBe('no-store');
    expect((await callback(t, `${REDIRECT}?code=x&state=never-issued`)).status).toBe(400);
  });

  it('a tampered code: 502, and the execution fails with a message', async () => {
    const headers = { cookie: 'nat-session=dave' };
    const paused = (await run(headers)).json as unknown as OAuthPause;
    const dave = browser('dave', headers);
    const redirect = new URL(await dave.consent(paused.auth_url));
    redirect.searchParams.set('code', `${redirect.searchParams.get('code')}tampered`);
    const back = await dave.callback(redirect.href);
    expect(back.status).toBe(502);
    expect(back.html).toContain('token endpoint refused the request (invalid_grant)');
    await eventually(async () =>
      expect(await status(t, paused, headers)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('invalid_grant'),
      }),
    );
  });

  it('access_denied at the provider: 502 page, and the execution fails naming the error', async () => {
    const headers = { cookie: 'nat-session=erin' };
    const paused = (await run(headers)).json as unknown as OAuthPause;
    const back = await browser('erin', headers).complete(paused.auth_url, { deny: true });
    expect(back.status).toBe(502);
    expect(back.html).toContain('access_denied');
    await eventually(async () =>
      expect(await status(t, paused, headers)).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('access_denied'),
      }),
    );
  });

  it("the provider's error as the browser brings it is repeated only in RFC 6749's characters, and cut short", async () => {
    const headers = { cookie: 'nat-session=faye' };
    const paused = (await run(headers)).json as unknown as OAuthPause;
    const faye = browser('faye', headers);
    await faye.open(paused.auth_url);
    const query = new URLSearchParams({
      state: paused.oauth_state,
      error: 'access_denied\r\nX-Forged: 1',
      error_description: `"quoted" \\ é ${'d'.repeat(400)}`,
    });
    const back = await faye.callback(`${t.url}/auth/redirect?${query}`);
    expect(back.status).toBe(502);
    const failed = await eventually(async () => {
      const record = await status(t, paused, headers);
      expect(record.status).toBe('failed');
      return record;
    });
    expect(failed.error).toBe(
      `Authorization was refused by the provider: access_denied??X-Forged: 1 (?quoted? ? ? ${'d'.repeat(287)}…)`,
    );
  });

  it("an anonymous caller's token lives only as long as its execution", async () => {
    const first = (await run({})).json as unknown as OAuthPause;
    expect((await browser('anon', {}).complete(first.auth_url)).status).toBe(200);
    await eventually(async () => expect((await status(t, first, {})).status).toBe('completed'));
    const second = await run({});
    expect(second.status).toBe(202);
    expect(second.json.status).toBe('oauth_required');
  });

  it('no secret reaches a log line, a response or an execution record', async () => {
    const secrets = [
      CLIENT_SECRET,
      ...auth.log.issued.flatMap((i) => [i.access_token, i.refresh_token ?? '']),
    ].filter(Boolean);
    expect(secrets.length).toBeGreaterThan(3);
    const logs = log.lines.join('');
    expect(logs).toContain('/auth/redirect');
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs).not.toMatch(/auth\/redirect\?[^"]*code=/);
  });
});

describe('OAuth edge cases', () => {
  it('times out after auth_timeout_seconds with a clear error', async () => {
    const auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
    });
    const t = await start(auth, new LogCapture(), { auth_timeout_seconds: 1 });
    try {
      const paused = (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, ALICE))
        .json as unknown as OAuthPause;
      await eventually(
        async () =>
          expect(await status(t, paused, ALICE)).toMatchObject({
            status: 'failed',
            error: 'Authentication flow timed out after 1 seconds',
          }),
        4000,
      );
      expect((await callback(t, `${REDIRECT}?code=late&state=${paused.oauth_state}`)).status).toBe(400);
    } finally {
      await t.close();
      await auth.close();
    }
  });

  it('PKCE off, a public client, and a short-lived token refreshed with its refresh token', async () => {
    const auth = await startAuthServer({
      clients: [{ client_id: 'interlude', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }],
      requirePkce: false,
      accessTokenTtlSeconds: 30,
    });
    const t = await start(auth, new LogCapture(), { client_secret: undefined, use_pkce: false });
    try {
      const paused = (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, ALICE))
        .json as unknown as OAuthPause;
      const alice = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
      const providerUrl = await alice.open(paused.auth_url);
      expect(new URL(providerUrl).searchParams.get('code_challenge')).toBeNull();
      expect((await alice.callback(await auth.authorize(providerUrl, 'alice'))).status).toBe(200);
      await eventually(async () => expect((await status(t, paused, ALICE)).status).toBe('completed'));
      expect(auth.log.tokenRequests[0]).toMatchObject({
        grant_type: 'authorization_code',
        code_verifier: false,
      });
      // a 30 s token is within the 60 s refresh margin: the next run refreshes instead of asking again
      const again = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, ALICE);
      expect(again.status).toBe(200);
      expect(auth.log.tokenRequests.map((r) => r.grant_type)).toEqual([
        'authorization_code',
        'refresh_token',
      ]);
      const [first, second] = auth.log.resourceCalls.map((c) => c.token);
      expect(second).not.toBe(first);
    } finally {
      await t.close();
      await auth.close();
    }
  });

  it('an unknown provider fails the workflow with the providers known', async () => {
    const auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
    });
    const config = configFrom(
      yaml(auth).replace('provider: calendar, save_as: me', 'provider: nope, save_as: me'),
    );
    const app = await createApp(config, { logger: false });
    await app.listen(0, '127.0.0.1');
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const res = await postJson(`${url}/v1/workflow`, { input_message: 'x' }, ALICE);
      expect(res.status).toBe(422);
      expect(res.json.message).toBe('Unknown authentication provider "nope" (known: calendar)');
    } finally {
      await app.close();
      await auth.close();
    }
  });
});
