import { randomBytes } from 'node:crypto';
import { parse, stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { valuesOf } from '../utils/hitl-stream';
import { openStream } from '../utils/live-sse';
import { OAuthBrowser } from '../utils/oauth-browser';
import { OAuthMcpServer } from '../utils/oauth-mcp-server';
import { startAuthServer, type AuthServer } from '../utils/oidc-server';
import { crash, sharedStoreYaml } from '../utils/replica-apps';
import { ReplicaServices } from '../utils/replica-services';
import { requires } from '../utils/requires';
import { startApp, type TestApp } from '../utils/test-app';

const REDIRECT = 'http://interlude.test/auth/redirect';
const session = (user: string) => ({ cookie: `nat-session=${user}` });

interface OAuthRequired {
  execution_id: string;
  auth_url: string;
  oauth_state: string;
}

/** A tool calling agent whose tool lives on the protected MCP server, on the shared store. */
function replicaYaml(services: ReplicaServices, llm: FakeLlm, mcp: OAuthMcpServer, keyVariable: string) {
  const config = parse(
    agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['remote'] },
      {},
      {},
      {
        authentication: {
          remote_auth: { _type: 'mcp_oauth2', server_url: mcp.url, redirect_uri: REDIRECT },
        },
        function_groups: {
          remote: {
            _type: 'mcp_client',
            server: { transport: 'streamable-http', url: mcp.url, auth_provider: 'remote_auth' },
          },
        },
      },
    ),
  ) as Record<string, unknown>;
  const general = (
    parse(sharedStoreYaml(services, services.newPrefix(), { leaseSeconds: 2 })) as {
      general: { executions: Record<string, unknown> };
    }
  ).general;
  general.executions.token_key_env = keyVariable;
  return stringify({ ...config, general: { ...general, outbound: { allow_hosts: ['127.0.0.1'] } } });
}

requires('postgres')('mcp_oauth2 across replicas', () => {
  requires('redis')('with the shared store', () => {
    const services = new ReplicaServices();
    const keyVariable = `INTERLUDE_TEST_TOKEN_KEY_${services.tag}`;
    let auth: AuthServer;
    let mcp: OAuthMcpServer;
    let llm: FakeLlm;
    let a: TestApp;
    let b: TestApp;

    beforeAll(async () => {
      process.env[keyVariable] = randomBytes(32).toString('base64');
      auth = await startAuthServer({ clients: [], scopes: ['mcp:tools'], registration: true });
      mcp = await OAuthMcpServer.start(auth);
      llm = await FakeLlm.start();
      const yaml = replicaYaml(services, llm, mcp, keyVariable);
      a = await startApp(yaml);
      b = await startApp(yaml);
    });
    afterAll(async () => {
      await Promise.all([a, b].filter(Boolean).map((app) => app.close()));
      await mcp?.stop();
      await llm?.close();
      await auth?.close();
      await services.cleanup();
      delete process.env[keyVariable];
    });

    const script = (greeting: string, answer: string) =>
      llm.script(
        reply.tools([{ name: 'remote__whoami', arguments: { greeting }, id: 'c1' }]),
        reply.text(answer),
      );

    it('consent asked on A and called back on B: B exchanges the code as the client A registered, A gets the tool result', async () => {
      script('Hello', 'done for alice');
      const onA = await openStream(`${a.url}/v1/workflow/stream`, {
        body: { input_message: 'who am I?' },
        headers: session('alice'),
      });
      const asked = await onA.nextEvent<OAuthRequired>('oauth_required');
      const alice = OAuthBrowser.of(b.url, auth, 'alice', session('alice'));
      expect((await alice.complete(asked.auth_url)).status).toBe(200);
      await onA.end();
      expect(valuesOf(onA).join('')).toBe('done for alice');
      expect(mcp.calls).toEqual([
        { tool: 'whoami', sub: 'alice', client_id: auth.log.registrations[0].client_id },
      ]);
      expect(auth.log.registrations).toHaveLength(1);
    });

    it('a run waiting for consent on a replica that stops is taken over: the consent given through the other completes it', async () => {
      const registered = auth.log.registrations[0];
      script('Hi', 'done for carol');
      const onA = await openStream(`${a.url}/v1/workflow/stream`, {
        body: { input_message: 'who am I?' },
        headers: session('carol'),
      });
      const asked = await onA.nextEvent<OAuthRequired>('oauth_required');
      onA.destroy();
      crash(a);

      const onB = await openStream(`${b.url}/executions/${asked.execution_id}/stream`, {
        headers: { ...session('carol'), 'Last-Event-ID': '0' },
      });
      const again = await onB.nextEvent<OAuthRequired>('oauth_required');
      expect(again).toMatchObject({ oauth_state: asked.oauth_state, auth_url: asked.auth_url });
      const carol = OAuthBrowser.of(b.url, auth, 'carol', session('carol'));
      expect((await carol.complete(again.auth_url)).status).toBe(200);
      await onB.end();
      expect(valuesOf(onB).join('')).toBe('done for carol');
      expect(onB.frames.filter((f) => f.event === 'oauth_required')).toHaveLength(1);
      expect(mcp.calls.at(-1)).toEqual({ tool: 'whoami', sub: 'carol', client_id: registered.client_id });
      // One client for the whole deployment, kept sealed beside the users' tokens.
      expect(auth.log.registrations).toHaveLength(1);
      const stored = JSON.stringify(await services.rows('oauth_token'));
      expect(stored).not.toContain(registered.client_secret);
    });
  });
});
