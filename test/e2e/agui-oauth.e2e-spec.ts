import { interruptsOf, RecordingAgent, textOf } from '../utils/agui-client';
import { OAuthBrowser } from '../utils/oauth-browser';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { startApp, type TestApp } from '../utils/test-app';

const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE = { cookie: 'nat-session=alice' };

describe('AG-UI: an OAuth consent is an interlude:oauth interrupt', () => {
  let auth: AuthServer;
  let t: TestApp;
  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [REDIRECT] }],
      accessTokenTtlSeconds: 3600,
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

  it('the run ends with the consent URL; after consent in the browser the resume completes the workflow', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`, { headers: ALICE }).say('who am I?');
    const [consent] = interruptsOf(await agent.run());
    expect(consent).toMatchObject({
      reason: 'interlude:oauth',
      metadata: {
        provider: 'calendar',
        authUrl: expect.stringMatching(/^http:\/\/interlude\.test\/auth\/redirect\/start\?state=/),
      },
    });
    await OAuthBrowser.of(t.url, auth, 'alice', ALICE).complete(
      (consent.metadata as { authUrl: string }).authUrl,
    );
    const events = await agent.resume({ [consent.id]: {} });
    expect(textOf(events)).toBe('Hello alice');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('a cancelled consent cancels the run', async () => {
    // Alice's token is cached by now: Bob has to consent.
    const bob = { cookie: 'nat-session=bob' };
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`, { headers: bob }).say('who am I?');
    const [consent] = interruptsOf(await agent.run());
    const events = await agent.resume({ [consent.id]: 'cancel' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
  });
});
