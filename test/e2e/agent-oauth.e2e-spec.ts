import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { OAuthBrowser } from '../utils/oauth-browser';
import { oauthProvider, startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';

const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE = { cookie: 'nat-session=alice' };

describe('http_request with an auth_provider: the agent calls an API as the user', () => {
  let auth: AuthServer;
  let llm: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    auth = await startAuthServer({
      clients: [{ client_id: 'interlude', client_secret: 'secret', redirect_uris: [REDIRECT] }],
    });
    llm = await FakeLlm.start();
    const provider = oauthProvider(auth, {
      client_id: 'interlude',
      client_secret: 'secret',
      redirect_uri: REDIRECT,
    });
    const functions = {
      whoami: {
        _type: 'http_request',
        url: auth.resourceUrl,
        auth_provider: 'calendar',
        description: 'Who the user is',
      },
    };
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: ['whoami'] },
        functions,
        {},
        {
          general: { outbound: { allow_hosts: ['127.0.0.1'] } },
          authentication: { calendar: provider },
        },
      ),
    );
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
    await auth.close();
  });

  it("pauses for the authorization, then the tool call carries the user's token", async () => {
    llm.script(reply.tools([{ name: 'whoami', arguments: {} }]), reply.text('You are alice.'));
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'Who am I?' }, ALICE);
    expect(start.status).toBe(202);
    expect(start.json.status).toBe('oauth_required');
    const browser = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    expect((await browser.complete(start.json.auth_url as string)).status).toBe(200);

    const id = start.json.execution_id as string;
    const end = await eventually(async () => {
      const body = (await (await fetch(`${t.url}/executions/${id}`, { headers: ALICE })).json()) as Record<
        string,
        unknown
      >;
      expect(body.status).toBe('completed');
      return body;
    });
    expect(end.result).toEqual({ value: 'You are alice.' });
    const answer = JSON.parse(llm.lastMessage(1).content!) as { status: number; body: { sub: string } };
    expect(answer).toMatchObject({ status: 200, body: { sub: 'alice' } });
    expect(auth.log.resourceCalls.at(-1)).toMatchObject({ sub: 'alice' });
  });
});
