import { ALICE, jobsAt } from '../utils/jobs-client';
import { OAuthBrowser } from '../utils/oauth-browser';
import { oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { startApp, type TestApp } from '../utils/test-app';

const CLIENT_SECRET = 'client-secret';
const REDIRECT = 'http://interlude.test/auth/redirect';

function yaml(auth: AuthServer): string {
  const settings = oauthProvider(
    auth,
    { client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uri: REDIRECT },
    { auth_timeout_seconds: 10 },
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

describe('a job whose workflow needs an OAuth authorization', () => {
  let auth: AuthServer;
  let t: TestApp;
  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: CLIENT_SECRET, redirect_uris: [REDIRECT] }],
      accessTokenTtlSeconds: 3600,
    });
    t = await startApp(yaml(auth));
  });
  afterAll(async () => {
    await t?.close();
    await auth?.close();
  });

  it('shows oauth_required with auth_url; once the user consents, the job goes on to success', async () => {
    const jobs = jobsAt(t.url, '/v1/workflow', ALICE);
    expect((await jobs.submit({ input_message: 'x', job_id: 'calendar' })).status).toBe(202);
    const waiting = await jobs.until('calendar', 'oauth_required');
    expect(waiting).toMatchObject({
      job_id: 'calendar',
      status: 'oauth_required',
      execution_id: expect.any(String),
      auth_url: `${REDIRECT}/start?state=${String(waiting.oauth_state)}`,
      oauth_state: expect.any(String),
      output: null,
    });
    const alice = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    const authUrl = await alice.open(String(waiting.auth_url));
    expect((await alice.callback(await auth.authorize(authUrl, 'alice'))).status).toBe(200);
    const done = await jobs.until('calendar', 'success');
    expect(done.output).toEqual({ value: 'Hello alice' });
    expect(done).not.toHaveProperty('auth_url');
  });
});
