import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { startApp, type TestApp } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

const REDIRECT = 'http://interlude.test/auth/redirect';

describe('WebSocket gateway: OAuth consent on the socket (real authorization server)', () => {
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
  outbound: { allow_hosts: [127.0.0.1] }
${calendarWorkflowYaml(auth, provider)}
`);
  });
  afterAll(async () => {
    await t.close();
    await auth.close();
  });

  it('asks with an oauth_consent interaction, resumes when /auth/redirect completes, and reuses the token', async () => {
    const ws = await WsClient.connect(t.url, { session: 'alice' });
    try {
      ws.send(userMessage('calendar', { id: 'u1', conversation_id: 'c-oauth' }));
      const consent = await ws.next();
      expect(consent).toMatchObject({
        type: 'system_interaction_message',
        parent_id: 'u1',
        conversation_id: 'c-oauth',
        status: 'in_progress',
        content: { input_type: 'oauth_consent', timeout: null },
      });
      const link = new URL(consent.content.text as string);
      expect(consent.id).toBe(link.searchParams.get('state'));
      // The browser holding alice's session opens the link, which leads on to the provider.
      const browser = OAuthBrowser.of(t.url, auth, 'alice', { cookie: 'nat-session=alice' });
      const authUrl = new URL(await browser.open(link.href));
      expect(authUrl.origin + authUrl.pathname).toBe(auth.authorizationUrl);
      expect(authUrl.searchParams.get('state')).toBe(consent.id);

      const back = await browser.callback(await auth.authorize(authUrl.href, 'alice'));
      expect(back.status).toBe(200);
      const run = await ws.run();
      expect(run.filter((m) => m.status === 'in_progress').map((m) => m.content.text)).toEqual([
        'Hello alice',
      ]);

      // The same user's next run uses the token it holds: no consent asked again.
      ws.send(userMessage('again', { id: 'u2', conversation_id: 'c-oauth' }));
      const second = await ws.run();
      expect(second.some((m) => m.type === 'system_interaction_message')).toBe(false);
      expect(second.find((m) => m.status === 'in_progress')?.content.text).toBe('Hello alice');
    } finally {
      ws.close();
    }
  });
});
