import { OAuthBrowser } from '../utils/oauth-browser';
import { SignJWT } from 'jose';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';
import { connectClosingAfterEach, userMessage, WsClient } from '../utils/ws-client';

const SECRET = 'a-shared-secret-of-at-least-32-bytes!!';
const ISSUER = 'https://id.example.com';

const jwt = (sub: string) =>
  new SignJWT({ aud: 'interlude', iss: ISSUER })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(sub)
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(SECRET));
const bearer = async (sub: string) => ({ authorization: `Bearer ${await jwt(sub)}` });

describe('WebSocket handshake: Origin is checked against the CORS origins', () => {
  let t: TestApp;
  const connect = connectClosingAfterEach();
  beforeAll(
    async () =>
      (t = await startApp(`general:
  front_end:
    cors: { allow_origins: ['https://app.example.com'], allow_origin_regex: 'https://(www\\.)?trusted\\.example' }
workflow: { _type: echo }
`)),
  );
  afterAll(() => t.close());

  const works = async (ws: WsClient) => {
    ws.send(userMessage('hello', { schema_type: 'generate' }));
    expect((await ws.run()).some((m) => m.status === 'complete')).toBe(true);
  };

  it.each([
    ['a page elsewhere', 'https://evil.example.com'],
    ['a sandboxed page (null)', 'null'],
    ['a host the regex only starts', 'https://trusted.example.evil.test'],
  ])('%s is refused: closed with 1008 and the reason', async (_name, origin) => {
    const ws = await connect(t.url, { session: 'alice' }, { headers: { origin } });
    const closed = await ws.closed;
    expect(closed.code).toBe(1008);
    expect(closed.reason).toMatch(/^Origin not allowed \(see general\.front_end\.cors\.allow_origins\)/);
    expect(ws.received).toEqual([]);
  });

  it.each([
    ['a listed origin', 'https://app.example.com'],
    ['an origin the regex matches whole', 'https://www.trusted.example'],
    ['no Origin (not a browser)', undefined],
    ['this server’s own origin', 'self'],
  ])('%s is accepted', async (_name, origin) => {
    const headers: Record<string, string> =
      origin === undefined ? {} : { origin: origin === 'self' ? t.url : origin };
    await works(await connect(t.url, {}, { headers }));
  });
});

describe('verified identity and OAuth: a claimed session never uses another user’s token', () => {
  const REDIRECT = 'http://interlude.test/auth/redirect';
  let auth: AuthServer;
  let t: TestApp;

  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [REDIRECT] }],
    });
    const provider = oauthProvider(auth, {
      client_id: 'interlude',
      client_secret: 'secret',
      redirect_uri: REDIRECT,
    });
    t = await startApp(`
general:
  auth:
    jwt: { secret: '${SECRET}' }
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}
`);
  });
  afterAll(async () => {
    await t.close();
    await auth.close();
  });

  it('Cookie: nat-session=user-b does not run with user-b’s stored token', async () => {
    const owner = await bearer('user-b');
    const paused = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, owner);
    expect(paused.status).toBe(202);
    const { auth_url, status_url } = paused.json as { auth_url: string; status_url: string };
    const back = await OAuthBrowser.of(t.url, auth, 'user-b', owner).complete(auth_url);
    expect(back.status).toBe(200);
    await eventually(async () => {
      const done = await (await fetch(`${t.url}${status_url}`, { headers: owner })).json();
      expect(done).toMatchObject({ status: 'completed', result: { value: 'Hello user-b' } });
    });
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, owner)).json).toEqual({
      value: 'Hello user-b',
    });

    const claimed = await postJson(
      `${t.url}/v1/workflow`,
      { input_message: 'x' },
      { cookie: 'nat-session=user-b' },
    );
    expect(claimed.json).not.toEqual({ value: 'Hello user-b' });
    expect(claimed.text).not.toContain('Hello user-b');
  });
});
