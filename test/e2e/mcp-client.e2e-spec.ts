import { createServer, type Server } from 'node:net';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { HttpMcpServer, STDIO_MCP_SERVER } from '../utils/mcp-servers';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';

const LOOPBACK = { general: { outbound: { allow_hosts: ['127.0.0.1'] } } };

function groups(http: HttpMcpServer, extra: Record<string, unknown> = {}) {
  return {
    function_groups: {
      math: {
        _type: 'mcp_client',
        server: { transport: 'streamable-http', url: http.url },
        tool_overrides: { lookup: { alias: 'define', description: 'Defines a word' } },
        exclude: ['flood'],
        reconnect_initial_backoff: 0.01,
        reconnect_max_backoff: 0.02,
      },
      local: {
        _type: 'mcp_client',
        server: { transport: 'stdio', command: 'node', args: [STDIO_MCP_SERVER] },
        include: ['lookup', 'flood'],
      },
    },
    ...LOOPBACK,
    ...extra,
  };
}

describe('mcp_client function groups (MCP servers made with the SDK)', () => {
  let llm: FakeLlm;
  let http: HttpMcpServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    http = await HttpMcpServer.start();
    t = await startApp(
      agentYaml(
        llm,
        { _type: 'tool_calling_agent', tool_names: ['math', 'local__flood'] },
        {},
        {},
        groups(http),
      ),
    );
  });
  afterEach(() => {
    expect(llm.pending).toBe(0);
    llm.reset();
  });
  afterAll(async () => {
    await t?.close();
    await http.stop();
    await llm.close();
  });

  it("offers the group's tools as <group>__<tool> with their schemas, an alias under its new name", async () => {
    llm.script(reply.text('ok'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    const tools = (
      llm.requests[0].body.tools as { function: { name: string; description: string; parameters: unknown } }[]
    ).map((x) => x.function);
    expect(tools.map((x) => x.name)).toEqual(['math__add', 'math__define', 'math__fail', 'local__flood']);
    expect(tools[0]).toEqual({
      name: 'math__add',
      description: 'Adds two numbers',
      parameters: expect.objectContaining({
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
      }),
    });
    expect(tools[1].description).toBe('Defines a word');
    // A server's description is untrusted text: it reaches the model bounded.
    expect(tools[3].description.length).toBeLessThan(2100);
  });

  it('calls a group tool and an aliased tool (by its MCP name) and the model reads the results', async () => {
    llm.script(
      reply.tools([
        { name: 'math__add', arguments: { a: 2, b: 40 }, id: 'c1' },
        { name: 'math__define', arguments: { word: 'mcp' }, id: 'c2' },
      ]),
      reply.text('done'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(res.json).toEqual({ value: 'done' });
    expect(http.calls.slice(-2)).toEqual([
      { name: 'add', arguments: { a: 2, b: 40 } },
      { name: 'lookup', arguments: { word: 'mcp' } },
    ]);
    const answers = llm.requests[1].body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(answers).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '42' },
      // Text parts joined with a newline; the image part is left out, as NAT does.
      { role: 'tool', tool_call_id: 'c2', content: 'mcp: first meaning (http)\nmcp: second meaning' },
    ]);
  });

  it("reports an isError result to the model as NAT's tool failure", async () => {
    llm.script(
      reply.tools([{ name: 'math__fail', arguments: { why: 'no' }, id: 'c1' }]),
      reply.text('sorry'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(llm.lastMessage(1)).toEqual({
      role: 'tool',
      tool_call_id: 'c1',
      content: 'Error: MCPToolClient tool call failed: cannot do that: no',
    });
  });

  it("refuses arguments that do not fit the tool's schema without calling the server", async () => {
    const before = http.calls.length;
    llm.script(
      reply.tools([{ name: 'math__add', arguments: { a: 'two', b: 2, extra: true }, id: 'c1' }]),
      reply.text('hm'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(llm.lastMessage(1).content).toMatch(/^Error: Invalid arguments: .*a must be number/);
    expect(http.calls.length).toBe(before);
  });

  it('runs a stdio server (one tool of it named alone) and bounds its oversized result', async () => {
    llm.script(reply.tools([{ name: 'local__flood', arguments: {}, id: 'c1' }]), reply.text('big'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    const content = llm.lastMessage(1).content as string;
    expect(content.startsWith('yyyy')).toBe(true);
    expect(content.length).toBeLessThan(70_000);
    expect(content).toMatch(/more characters cut\]$/);
  });

  it("lists the groups in NAT's shape at GET /mcp/client/tool/list", async () => {
    const res = await fetch(`${t.url}/mcp/client/tool/list`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { mcp_clients: unknown[] };
    const server = `streamable-http:${http.url}`;
    expect(body.mcp_clients).toEqual([
      {
        function_group: 'math',
        server,
        transport: 'streamable-http',
        session_healthy: true,
        protected: false,
        tools: [
          { name: 'add', description: 'Adds two numbers', server, available: true },
          { name: 'define', description: 'Defines a word', server, available: true },
          { name: 'fail', description: 'Always fails', server, available: true },
        ],
        total_tools: 3,
        available_tools: 3,
      },
      {
        function_group: 'local',
        server: 'stdio:node',
        transport: 'stdio',
        session_healthy: true,
        protected: false,
        tools: [
          {
            name: 'flood',
            description: expect.stringMatching(/^x+… \[\d+ more characters cut\]$/),
            server: 'stdio:node',
            available: true,
          },
          { name: 'lookup', description: 'Looks a word up', server: 'stdio:node', available: true },
        ],
        total_tools: 2,
        available_tools: 2,
      },
    ]);
  });

  it('when the server goes away: session_healthy false, a tool error at call time, and back when it returns', async () => {
    await http.stop();
    // The listing is looked at again once the last look (at most 5 s old) has expired.
    await eventually(async () => {
      const down = (await (await fetch(`${t.url}/mcp/client/tool/list`)).json()) as {
        mcp_clients: { session_healthy: boolean; available_tools: number }[];
      };
      expect(down.mcp_clients[0]).toMatchObject({ session_healthy: false, available_tools: 0 });
    });
    llm.script(reply.tools([{ name: 'math__add', arguments: { a: 1, b: 1 }, id: 'c1' }]), reply.text('down'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(llm.lastMessage(1).content).toMatch(
      /^Error: MCPToolClient tool call failed: streamable-http:http:\/\/127\.0\.0\.1:\d+\/mcp: /,
    );
    await http.start();
    llm.script(reply.tools([{ name: 'math__add', arguments: { a: 1, b: 1 }, id: 'c1' }]), reply.text('up'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(llm.lastMessage(3).content).toBe('2');
  });
});

describe('mcp_client at start-up', () => {
  let llm: FakeLlm;
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterAll(() => llm.close());
  const yaml = (
    server: Record<string, unknown>,
    extra: Record<string, unknown> = LOOPBACK,
    group: Record<string, unknown> = {},
  ) =>
    agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['remote'] },
      {},
      {},
      {
        function_groups: { remote: { _type: 'mcp_client', server, reconnect_max_attempts: 0, ...group } },
        ...extra,
      },
    );

  it('an unreachable server stops start-up with an error naming the group and the URL', async () => {
    const closed = await HttpMcpServer.start();
    const url = closed.url;
    await closed.stop();
    await expect(startApp(yaml({ transport: 'streamable-http', url }))).rejects.toThrow(
      new RegExp(
        `^function_groups\\.remote: cannot list the tools of streamable-http:${url.replace(/[.]/g, '\\.')}: `,
      ),
    );
  });

  it('a server that accepts but never answers fails after tool_call_timeout instead of hanging', async () => {
    const silent: Server = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    try {
      await expect(
        startApp(
          yaml({ transport: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` }, LOOPBACK, {
            tool_call_timeout: 0.5,
          }),
        ),
      ).rejects.toThrow(/function_groups\.remote: cannot list the tools of streamable-http:/);
    } finally {
      silent.close();
    }
  });

  it('a loopback URL goes through general.outbound like every tool: refused unless allowed', async () => {
    const http = await HttpMcpServer.start();
    try {
      await expect(startApp(yaml({ transport: 'streamable-http', url: http.url }, {}))).rejects.toThrow(
        /function_groups\.remote: .*requests to 127\.0\.0\.1 are refused/,
      );
    } finally {
      await http.stop();
    }
  });

  it('a URL with a key in its query is redacted in the error', async () => {
    await expect(
      startApp(yaml({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp?api_key=sekrit' })),
    ).rejects.toThrow(/streamable-http:http:\/\/127\.0\.0\.1:9\/mcp\?…/);
    await expect(
      startApp(yaml({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp?api_key=sekrit' })),
    ).rejects.not.toThrow(/sekrit/);
  });
});
