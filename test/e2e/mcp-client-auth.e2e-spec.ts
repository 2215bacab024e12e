import type { IncomingMessage } from 'node:http';
import { connectGroups } from '../../src/config/function-groups';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { HttpMcpServer } from '../utils/mcp-servers';
import { startAuthServer, type AuthServer } from '../utils/oidc-server';
import { postJson } from '../utils/sse';
import { configFrom, startApp, type TestApp } from '../utils/test-app';

const LOOPBACK = { general: { outbound: { allow_hosts: ['127.0.0.1'] } } };
const SERVICE = { client_id: 'jira-service', client_secret: 'svc secret/1', redirect_uris: [] };

const bearer = (req: IncomingMessage) => /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';

function yaml(llm: FakeLlm, server: HttpMcpServer, provider: Record<string, unknown>): string {
  return agentYaml(
    llm,
    { _type: 'tool_calling_agent', tool_names: ['jira'] },
    {},
    {},
    {
      function_groups: {
        jira: {
          _type: 'mcp_client',
          server: { transport: 'streamable-http', url: server.url, auth_provider: 'service_account' },
          include: ['add'],
          reconnect_initial_backoff: 0.01,
          reconnect_max_backoff: 0.02,
        },
      },
      authentication: { service_account: provider },
      ...LOOPBACK,
    },
  );
}

describe("mcp_client with NAT's mcp_service_account (client credentials from a real authorization server)", () => {
  let llm: FakeLlm;
  let auth: AuthServer;
  let jira: HttpMcpServer;
  let t: TestApp | undefined;
  const admitted: { client_id: string; scope: string }[] = [];
  /** Tokens the MCP server stops accepting (as if revoked). */
  const revoked = new Set<string>();
  beforeAll(async () => {
    llm = await FakeLlm.start();
    auth = await startAuthServer({
      clients: [{ ...SERVICE, grant_types: ['client_credentials'] }],
      scopes: ['jira:read', 'jira:write'],
    });
    // The MCP server admits a request only with a live client credentials token of the authorization server.
    jira = await HttpMcpServer.start(async (req) => {
      const token = revoked.has(bearer(req)) ? undefined : await auth.serviceToken(bearer(req));
      if (token) admitted.push(token);
      return token !== undefined;
    });
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    llm.reset();
  });
  afterAll(async () => {
    await jira.stop();
    await auth.close();
    await llm.close();
  });

  const provider = {
    _type: 'mcp_service_account',
    client_id: SERVICE.client_id,
    client_secret: SERVICE.client_secret,
    scopes: 'jira:read jira:write',
    service_token: { token: 'jira-api-token', header: 'X-Jira-Token' },
  };

  it('gets one token with the client credentials grant and sends it, and the service token, on every MCP request', async () => {
    t = await startApp(yaml(llm, jira, { ...provider, token_url: auth.tokenUrl }));
    llm.script(reply.tools([{ name: 'jira__add', arguments: { a: 1, b: 2 }, id: 'c1' }]), reply.text('3'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'add' });
    expect(res.json).toEqual({ value: '3' });
    expect(llm.lastMessage(1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '3' });
    expect(jira.calls).toEqual([{ name: 'add', arguments: { a: 1, b: 2 } }]);
    // Start-up's tools/list and the call: every request carried the bearer token and the service token.
    expect(jira.headers.length).toBeGreaterThanOrEqual(2);
    expect(jira.headers.every((h) => h['x-jira-token'] === 'jira-api-token')).toBe(true);
    expect(new Set(jira.headers.map((h) => h.authorization)).size).toBe(1);
    expect(admitted.at(-1)).toEqual({ client_id: 'jira-service', scope: 'jira:read jira:write' });
    // One grant, client authenticated with HTTP Basic, kept for the token's lifetime.
    expect(auth.log.tokenRequests).toEqual([
      {
        grant_type: 'client_credentials',
        code_verifier: false,
        client_auth: 'client_secret_basic',
        status: 200,
      },
    ]);
  });

  it('asks again when the token is within token_cache_buffer_seconds of expiring', async () => {
    const before = auth.log.tokenRequests.length;
    // The server's tokens live 600 s: a 600 s buffer means every request wants a new one.
    t = await startApp(
      yaml(llm, jira, { ...provider, token_url: auth.tokenUrl, token_cache_buffer_seconds: 600 }),
    );
    llm.script(reply.tools([{ name: 'jira__add', arguments: { a: 2, b: 2 }, id: 'c1' }]), reply.text('4'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'add' });
    const grants = auth.log.tokenRequests.slice(before);
    expect(grants.length).toBeGreaterThanOrEqual(2);
    expect(grants.every((g) => g.grant_type === 'client_credentials' && g.status === 200)).toBe(true);
  });

  it('a token the MCP server answers 401 to is replaced by a new grant, and the call goes through', async () => {
    t = await startApp(yaml(llm, jira, { ...provider, token_url: auth.tokenUrl }));
    const before = auth.log.tokenRequests.length;
    const first = jira.headers.at(-1)!.authorization!;
    revoked.add(first.slice('Bearer '.length));
    llm.script(reply.tools([{ name: 'jira__add', arguments: { a: 3, b: 4 }, id: 'c1' }]), reply.text('7'));
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'add' })).json).toEqual({ value: '7' });
    expect(llm.lastMessage(1)).toEqual({ role: 'tool', tool_call_id: 'c1', content: '7' });
    expect(auth.log.tokenRequests.length).toBe(before + 1);
    expect(jira.headers.at(-1)!.authorization).not.toBe(first);
  });

  it('a wrong secret stops start-up naming the group and the refused credentials, never reaching the MCP server', async () => {
    const seen = jira.headers.length;
    const config = configFrom(
      yaml(llm, jira, { ...provider, client_secret: 'wrong', token_url: auth.tokenUrl }),
    );
    try {
      await expect(connectGroups(config)).rejects.toThrow(
        /^function_groups\.jira: cannot list the tools of .*invalid service account credentials \(401\)/,
      );
    } finally {
      for (const group of config.groups.values()) await group.close();
    }
    expect(jira.headers.length).toBe(seen);
  });
});

describe("mcp_client with NAT's api_key provider", () => {
  it.each([
    [{ auth_scheme: 'X-API-Key' }, 'x-api-key', 'k3y-0123456789'],
    [{}, 'authorization', 'Bearer k3y-0123456789'],
    [
      { auth_scheme: 'Custom', custom_header_name: 'X-Team-Key', custom_header_prefix: 'Key' },
      'x-team-key',
      'Key k3y-0123456789',
    ],
  ])('%j sends the key as NAT does', async (scheme, header, value) => {
    const llm = await FakeLlm.start();
    const server = await HttpMcpServer.start((req) => Promise.resolve(req.headers[header] === value));
    const t = await startApp(yaml(llm, server, { _type: 'api_key', raw_key: 'k3y-0123456789', ...scheme }));
    try {
      llm.script(reply.tools([{ name: 'jira__add', arguments: { a: 5, b: 5 }, id: 'c1' }]), reply.text('10'));
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'add' })).json).toEqual({
        value: '10',
      });
      expect(server.calls).toEqual([{ name: 'add', arguments: { a: 5, b: 5 } }]);
    } finally {
      await t.close();
      await server.stop();
      await llm.close();
    }
  });
});
