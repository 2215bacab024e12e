import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { OAuthBrowser } from '../utils/oauth-browser';
import { OAuthMcpServer } from '../utils/oauth-mcp-server';
import { startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';

const REDIRECT = 'http://interlude.test/auth/redirect';
const ALICE = { cookie: 'nat-session=alice' };
const BOB = { cookie: 'nat-session=bob' };
const CAROL = { cookie: 'nat-session=carol' };
const DAVE = { cookie: 'nat-session=dave' };

function yaml(llm: FakeLlm, mcp: OAuthMcpServer, group: string, provider: Record<string, unknown> = {}) {
  return agentYaml(
    llm,
    { _type: 'tool_calling_agent', tool_names: ['remote'] },
    {},
    {},
    {
      general: { outbound: { allow_hosts: ['127.0.0.1'] } },
      authentication: {
        remote_auth: {
          _type: 'mcp_oauth2',
          server_url: mcp.url,
          redirect_uri: REDIRECT,
          client_name: 'Interlude e2e',
          enable_dynamic_registration: true,
          ...provider,
        },
      },
      function_groups: {
        remote: {
          _type: group,
          server: { transport: 'streamable-http', url: mcp.url, auth_provider: 'remote_auth' },
        },
      },
    },
  );
}

interface Stack {
  auth: AuthServer;
  mcp: OAuthMcpServer;
  llm: FakeLlm;
  t: TestApp;
}

/**
 * An authorization server, the MCP server it protects, the fake model and an app whose agent calls that
 * server's tools: `start` builds them before a suite's tests, `started` hands them to the suite's own
 * variables, and they are stopped after its tests.
 */
function withOAuthMcp(start: () => Promise<Stack>, started: (stack: Stack) => void): void {
  let stack: Partial<Stack> = {};
  beforeAll(async () => {
    stack = await start();
    started(stack as Stack);
  });
  afterEach(() => stack.llm?.reset());
  afterAll(async () => {
    await stack.t?.close();
    await stack.mcp?.stop();
    await stack.llm?.close();
    await stack.auth?.close();
  });
}

async function finished(
  t: TestApp,
  id: string,
  who: Record<string, string>,
): Promise<Record<string, unknown>> {
  return eventually(async () => {
    const res = await fetch(`${t.url}/executions/${id}`, { headers: who });
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.status).toBe('completed');
    return body;
  });
}

describe.each(['mcp_client', 'per_user_mcp_client'])(
  "%s behind NAT's mcp_oauth2: discovery, dynamic registration, each user's consent",
  (group) => {
    let auth: AuthServer;
    let llm: FakeLlm;
    let mcp: OAuthMcpServer;
    let t: TestApp;
    withOAuthMcp(
      async () => {
        const auth = await startAuthServer({ clients: [], scopes: ['mcp:tools'], registration: true });
        const mcp = await OAuthMcpServer.start(auth);
        const llm = await FakeLlm.start();
        // Start-up needs no user and does not wait for one: the tool list waits for the first user.
        return { auth, mcp, llm, t: await startApp(yaml(llm, mcp, group)) };
      },
      (stack) => ({ auth, mcp, llm, t } = stack),
    );

    async function ask(who: Record<string, string>, user: string, greeting: string) {
      llm.script(
        reply.tools([{ name: 'remote__whoami', arguments: { greeting }, id: 'c1' }]),
        reply.text(`done for ${user}`),
      );
      return postJson(`${t.url}/v1/workflow`, { input_message: 'who am I?' }, who);
    }

    it('the first call asks the user to authorize (oauth_required), then the tool answers as that user', async () => {
      // mcp_client: start-up's listing was refused (no user, no token) and asked nobody. A per-user
      // group is not listed at start-up (NAT builds it at the first request).
      if (group === 'mcp_client') expect(mcp.refused).toBeGreaterThan(0);
      else expect(mcp.refused).toBe(0);
      expect(auth.log.registrations).toEqual([]);
      const start = await ask(ALICE, 'alice', 'Hello');
      expect(start.status).toBe(202);
      expect(start.json.status).toBe('oauth_required');
      // The client registered itself with the authorization server it discovered from the MCP server.
      expect(auth.log.registrations).toEqual([
        expect.objectContaining({ client_name: 'Interlude e2e', redirect_uris: [REDIRECT] }),
      ]);
      const browser = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
      expect((await browser.complete(start.json.auth_url as string)).status).toBe(200);

      const end = await finished(t, start.json.execution_id as string, ALICE);
      expect(end.result).toEqual({ value: 'done for alice' });
      expect(llm.lastMessage(1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: 'Hello, alice' });
      const client = auth.log.registrations[0].client_id;
      expect(mcp.calls).toEqual([{ tool: 'whoami', sub: 'alice', client_id: client }]);
      // The code grant with PKCE, the client authenticated as it registered (client_secret_post).
      expect(auth.log.tokenRequests).toEqual([
        {
          grant_type: 'authorization_code',
          code_verifier: true,
          client_auth: 'client_secret_post',
          status: 200,
        },
      ]);
    });

    it('a second user is asked separately and the tool answers as them', async () => {
      const start = await ask(BOB, 'bob', 'Hi');
      expect(start.json.status).toBe('oauth_required');
      const browser = OAuthBrowser.of(t.url, auth, 'bob', BOB);
      expect((await browser.complete(start.json.auth_url as string)).status).toBe(200);
      const end = await finished(t, start.json.execution_id as string, BOB);
      expect(end.result).toEqual({ value: 'done for bob' });
      expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: 'Hi, bob' });
      expect(mcp.calls.at(-1)).toMatchObject({ sub: 'bob' });
      expect(auth.log.registrations).toHaveLength(1);
    });

    it('a user who has authorized is not asked again', async () => {
      const res = await ask(ALICE, 'alice', 'Again');
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'done for alice' });
      expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: 'Again, alice' });
    });

    it("a token the MCP server refuses is refreshed with the user's refresh token, without asking", async () => {
      const alices = auth.log.issued.filter((i) => i.sub === 'alice');
      for (const issued of alices) mcp.revoked.add(issued.access_token);
      const refused = mcp.refused;
      const res = await ask(ALICE, 'alice', 'Fresh');
      expect(res.status).toBe(200);
      expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: 'Fresh, alice' });
      expect(mcp.refused).toBeGreaterThan(refused);
      expect(auth.log.tokenRequests.at(-1)).toMatchObject({ grant_type: 'refresh_token', status: 200 });
    });

    it("a user who refuses consent gets the refusal as the tool's error and the server never sees a call of theirs", async () => {
      const start = await ask(CAROL, 'carol', 'Hey');
      expect(start.json.status).toBe('oauth_required');
      const browser = OAuthBrowser.of(t.url, auth, 'carol', CAROL);
      expect((await browser.complete(start.json.auth_url as string, { deny: true })).status).toBe(502);
      const end = await finished(t, start.json.execution_id as string, CAROL);
      expect(end.result).toEqual({ value: 'done for carol' });
      expect(llm.lastMessage(1)).toMatchObject({
        role: 'tool',
        content: expect.stringMatching(/access_denied/),
      });
      expect(mcp.calls.filter((c) => c.sub === 'carol')).toEqual([]);
    });

    it('on a route that cannot pause for consent, the tool tells the model which route can', async () => {
      llm.script(
        reply.tools([{ name: 'remote__whoami', arguments: { greeting: 'Yo' }, id: 'c1' }]),
        reply.text('use the other route'),
      );
      const res = await postJson(`${t.url}/generate`, { input_message: 'who am I?' }, DAVE);
      expect(res.status).toBe(200);
      expect(llm.lastMessage(1)).toMatchObject({
        role: 'tool',
        content: expect.stringMatching(/not an interactive route\. Use the interactive route \/v1\/workflow/),
      });
      expect(mcp.calls.filter((c) => c.sub === 'dave')).toEqual([]);
    });
  },
);

describe('mcp_oauth2 against a server that names its metadata only in its 401', () => {
  let auth: AuthServer;
  let llm: FakeLlm;
  let mcp: OAuthMcpServer;
  let t: TestApp;
  withOAuthMcp(
    async () => {
      const auth = await startAuthServer({ clients: [], scopes: ['mcp:tools'], registration: true });
      const mcp = await OAuthMcpServer.start(auth, { metadataPath: '/meta/protected-resource' });
      const llm = await FakeLlm.start();
      return { auth, mcp, llm, t: await startApp(yaml(llm, mcp, 'mcp_client')) };
    },
    (stack) => ({ auth, mcp, llm, t } = stack),
  );

  it("follows WWW-Authenticate's resource_metadata to the authorization server and asks for its scope", async () => {
    llm.script(
      reply.tools([{ name: 'remote__whoami', arguments: { greeting: 'Hello' }, id: 'c1' }]),
      reply.text('done'),
    );
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'who am I?' }, ALICE);
    expect(start.json.status).toBe('oauth_required');
    const browser = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    const toProvider = new URL(await browser.open(start.json.auth_url as string));
    expect(toProvider.origin).toBe(auth.issuer);
    expect(toProvider.searchParams.get('scope')).toBe('mcp:tools');
    expect(toProvider.searchParams.get('resource')).toBe(mcp.url);
    expect((await browser.callback(await auth.authorize(toProvider.href, 'alice'))).status).toBe(200);
    const end = await finished(t, start.json.execution_id as string, ALICE);
    expect(end.result).toEqual({ value: 'done' });
    expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: 'Hello, alice' });
  });
});

describe('mcp_oauth2 with a client registered beforehand (client_id and client_secret)', () => {
  let auth: AuthServer;
  let llm: FakeLlm;
  let mcp: OAuthMcpServer;
  let t: TestApp;
  withOAuthMcp(
    async () => {
      const auth = await startAuthServer({
        clients: [
          {
            client_id: 'interlude-mcp',
            client_secret: 'mcp secret',
            redirect_uris: [REDIRECT],
            token_endpoint_auth_method: 'client_secret_post',
          },
        ],
        scopes: ['mcp:tools'],
      });
      const mcp = await OAuthMcpServer.start(auth);
      const llm = await FakeLlm.start();
      const manual = { client_id: 'interlude-mcp', client_secret: 'mcp secret', scopes: 'mcp:tools' };
      return { auth, mcp, llm, t: await startApp(yaml(llm, mcp, 'per_user_mcp_client', manual)) };
    },
    (stack) => ({ auth, mcp, llm, t } = stack),
  );

  it('registers nothing and speaks as the configured client', async () => {
    llm.script(
      reply.tools([{ name: 'remote__whoami', arguments: { greeting: 'Hello' }, id: 'c1' }]),
      reply.text('done'),
    );
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'who am I?' }, ALICE);
    expect(start.json.status).toBe('oauth_required');
    const browser = OAuthBrowser.of(t.url, auth, 'alice', ALICE);
    expect((await browser.complete(start.json.auth_url as string)).status).toBe(200);
    const end = await finished(t, start.json.execution_id as string, ALICE);
    expect(end.result).toEqual({ value: 'done' });
    expect(mcp.calls).toEqual([{ tool: 'whoami', sub: 'alice', client_id: 'interlude-mcp' }]);
    expect(auth.log.registrations).toEqual([]);
    expect(auth.log.tokenRequests).toEqual([
      {
        grant_type: 'authorization_code',
        code_verifier: true,
        client_auth: 'client_secret_post',
        status: 200,
      },
    ]);
  });
});
