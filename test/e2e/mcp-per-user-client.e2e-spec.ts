import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { ALICE, BOB } from '../utils/jobs-client';
import { HttpMcpServer } from '../utils/mcp-servers';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

/** NAT's simple_calculator_mcp per-user config: a per_user_mcp_client group with an include list. */
describe('per_user_mcp_client (a session per user with an MCP server made with the SDK)', () => {
  let llm: FakeLlm;
  let http: HttpMcpServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    http = await HttpMcpServer.start();
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'per_user_react_agent', tool_names: ['mcp_math'] },
        {},
        {},
        {
          general: { outbound: { allow_hosts: ['127.0.0.1'] } },
          function_groups: {
            mcp_math: {
              _type: 'per_user_mcp_client',
              server: { transport: 'streamable-http', url: http.url },
              include: ['add'],
              max_sessions: 1,
            },
          },
        },
      ),
    );
  });
  afterAll(async () => {
    await t?.close();
    await http?.stop();
    await llm?.close();
  });

  const addAs = async (who: Record<string, string>, a: number, b: number) => {
    llm.reset();
    llm.script(
      reply.text(`Thought: add\nAction: mcp_math__add\nAction Input: {"a": ${a}, "b": ${b}}`),
      reply.text(`Thought: done\nFinal Answer: ${a + b}`),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: `${a}+${b}?` }, who);
    expect(llm.pending).toBe(0);
    return res;
  };

  it("lists the server's tools at the first call, not at start-up, and opens each user's own session", async () => {
    const listedAtStart = http.methods.filter((m) => m === 'initialize').length;
    expect(listedAtStart).toBe(0);

    expect((await addAs(ALICE, 2, 3)).json).toEqual({ value: '5' });
    expect(llm.requests[1].body.messages.at(-1)?.content).toContain('Observation: 5');
    const afterAlice = http.methods.filter((m) => m === 'initialize').length;
    expect(afterAlice).toBe(2);

    await addAs(BOB, 1, 1);
    expect(http.methods.filter((m) => m === 'initialize').length).toBe(3);
    expect(http.calls.map((c) => c.arguments)).toEqual([
      { a: 2, b: 3 },
      { a: 1, b: 1 },
    ]);
  });

  it("past max_sessions the least recently used user's session is closed; their next call opens a new one", async () => {
    const before = http.methods.filter((m) => m === 'initialize').length;
    // max_sessions: 1 — Bob's session closed Alice's, so Alice starts a new one, which closes Bob's.
    await addAs(ALICE, 4, 4);
    await addAs(ALICE, 5, 5);
    expect(http.methods.filter((m) => m === 'initialize').length).toBe(before + 1);
  });

  it('shows in /mcp/client/tool/list as its group, with its tools', async () => {
    const res = await fetch(`${t.url}/mcp/client/tool/list`);
    const body = (await res.json()) as {
      mcp_clients: { function_group: string; tools: { name: string }[] }[];
    };
    expect(body.mcp_clients.find((c) => c.function_group === 'mcp_math')?.tools.map((x) => x.name)).toEqual([
      'add',
    ]);
  });
});

/** NAT builds a per-user group at a user's first request: its server being down does not stop start-up. */
describe('per_user_mcp_client whose server is down at start-up', () => {
  let llm: FakeLlm;
  let http: HttpMcpServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    http = await HttpMcpServer.start();
    await http.stop();
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'per_user_react_agent', tool_names: ['mcp_math'] },
        {},
        {},
        {
          general: { outbound: { allow_hosts: ['127.0.0.1'] } },
          function_groups: {
            mcp_math: {
              _type: 'per_user_mcp_client',
              // No transport: NAT's default, streamable-http.
              server: { url: http.url },
              reconnect_max_attempts: 0,
            },
          },
        },
      ),
    );
  });
  afterAll(async () => {
    await t?.close();
    await http?.stop();
    await llm?.close();
  });

  it('starts, shows the group unhealthy, and a call names the group and URL until the server is up', async () => {
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
    const list = (await (await fetch(`${t.url}/mcp/client/tool/list`)).json()) as {
      mcp_clients: { function_group: string; session_healthy: boolean; tools: unknown[] }[];
    };
    expect(list.mcp_clients).toEqual([
      expect.objectContaining({ function_group: 'mcp_math', session_healthy: false, tools: [] }),
    ]);

    const down = await postJson(`${t.url}/v1/workflow`, { input_message: '2+3?' }, ALICE);
    expect(down.status).toBe(422);
    expect(down.json).toEqual({
      code: 'workflow_error',
      message: expect.stringMatching(
        new RegExp(
          `^function_groups\\.mcp_math: cannot list the tools of streamable-http:${http.url}: .*ECONNREFUSED`,
        ),
      ),
      details: 'Error',
    });

    await http.start();
    llm.script(
      reply.text('Thought: add\nAction: mcp_math__add\nAction Input: {"a": 2, "b": 3}'),
      reply.text('Thought: done\nFinal Answer: 5'),
    );
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: '2+3?' }, ALICE)).json).toEqual({
      value: '5',
    });
  });
});
