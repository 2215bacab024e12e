import { createHash, randomUUID } from 'node:crypto';
import { RecordingAgent } from '../utils/agui-client';
import { jobsAt } from '../utils/jobs-client';
import { calendarWorkflowYaml, oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson, postStream } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';
import { userMessage, WsClient } from '../utils/ws-client';

const REDIRECT = 'http://interlude.test/auth/redirect';
const REFUSED = /identified callers.*general\.auth\.anonymous_oauth is off/;
const API_KEY = 'key-of-alice-0123456789';

function yaml(auth: AuthServer, authSection: string): string {
  const provider = oauthProvider(auth, {
    client_id: 'interlude',
    client_secret: 's',
    redirect_uri: REDIRECT,
  });
  return `
general:
  outbound: { allow_hosts: [127.0.0.1] }
  auth:
${authSection}
${calendarWorkflowYaml(auth, provider)}`;
}

/** Every face that starts a workflow, asked anonymously: each says why it will not ask for consent. */
function refusesAnonymousOnEveryFace(app: () => TestApp) {
  it('/v1/workflow answers with the reason', async () => {
    const res = await postJson(`${app().url}/v1/workflow`, { input_message: 'x' });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 'workflow_error', message: expect.stringMatching(REFUSED) });
  });

  it('/v1/workflow/stream ends with the reason', async () => {
    const res = await postStream(`${app().url}/v1/workflow/stream`, { input_message: 'x' });
    expect(res.text).toMatch(REFUSED);
    expect(res.text).not.toContain('/auth/redirect/start');
  });

  it('the WebSocket answers with an error message', async () => {
    const ws = await WsClient.connect(app().url);
    try {
      ws.send(userMessage('calendar', { id: 'u1' }));
      const [error] = await ws.until((m) => m.type === 'error_message');
      expect(JSON.stringify(error.content)).toMatch(REFUSED);
      expect(ws.received.some((m) => m.type === 'system_interaction_message')).toBe(false);
    } finally {
      ws.close();
    }
  });

  it('AG-UI ends the run with RUN_ERROR, not an interrupt', async () => {
    const events = await new RecordingAgent(`${app().url}/v1/ag-ui`).say('calendar').run();
    const end = events[events.length - 1];
    expect(end).toMatchObject({ type: 'RUN_ERROR', message: expect.stringMatching(REFUSED) });
  });

  it('an async job fails with the reason', async () => {
    const jobs = jobsAt(app().url);
    const submitted = await jobs.submit({ input_message: 'x', job_id: randomUUID() });
    expect(submitted.status).toBe(202);
    const done = await jobs.until(submitted.body.job_id as string, ['failure', 'interrupted', 'success']);
    expect(done).toMatchObject({ status: 'failure', error: expect.stringMatching(REFUSED) });
  });
}

describe('general.auth.anonymous_oauth', () => {
  let auth: AuthServer;
  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 's', redirect_uris: [REDIRECT] }],
    });
  });
  afterAll(() => auth.close());

  describe('is off by default under verified identity (api_keys)', () => {
    let t: TestApp;
    beforeAll(async () => {
      const hash = createHash('sha256').update(API_KEY).digest('hex');
      t = await startApp(yaml(auth, `    api_keys: [{ hash: 'sha256:${hash}', user_id: alice }]`));
    });
    afterAll(() => t.close());

    refusesAnonymousOnEveryFace(() => t);

    it('an identified caller still gets the consent link', async () => {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' }, { 'x-api-key': API_KEY });
      expect(res.status).toBe(202);
      expect(res.json).toMatchObject({
        status: 'oauth_required',
        auth_url: expect.stringContaining('/start?'),
      });
    });
  });

  describe('can be turned off under asserted identity', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(yaml(auth, '    anonymous_oauth: false'));
    });
    afterAll(() => t.close());

    refusesAnonymousOnEveryFace(() => t);

    it('a caller with a session still gets the consent link', async () => {
      const res = await postJson(
        `${t.url}/v1/workflow`,
        { input_message: 'x' },
        { cookie: 'nat-session=bob' },
      );
      expect(res.status).toBe(202);
    });
  });

  it('is on by default under asserted identity: an anonymous caller gets the consent link', async () => {
    const t = await startApp(yaml(auth, '    require_identity: false'));
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      expect(res.status).toBe(202);
    } finally {
      await t.close();
    }
  });
});
