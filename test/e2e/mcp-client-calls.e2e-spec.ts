import { resolve } from 'node:path';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { jobsAt } from '../utils/jobs-client';
import { LogCapture, startLoggedApp } from '../utils/logged-app';
import { HostileMcpServer, hostileMcpAgentYaml } from '../utils/mcp-hostile-server';
import { postJson } from '../utils/sse';
import { configFrom, eventually, startApp, type TestApp } from '../utils/test-app';

// What a run observes of an MCP server's tool calls that fail, hang or answer too much: each call
// reaches the server once, ends closing its own stream, and the model reads why.
describe('mcp_client tool calls that fail, hang or answer too much', () => {
  let llm: FakeLlm;
  let mcp: HostileMcpServer;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    mcp = await HostileMcpServer.start();
    t = await startApp(
      hostileMcpAgentYaml(llm, mcp, { tool_call_timeout: 2 }, { max_response_bytes: 100_000 }),
    );
  });
  afterEach(() => {
    expect(llm.pending).toBe(0);
    llm.reset();
  });
  afterAll(async () => {
    await t?.close();
    await mcp.stop();
    await llm.close();
  });

  /** One run whose model calls `calls` in one turn; the tool messages the model read next. */
  async function run(...calls: { name: string; arguments: unknown }[]): Promise<string[]> {
    llm.script(reply.tools(calls.map((c, i) => ({ ...c, id: `c${i}` }))), reply.text('done'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    return llm.requests
      .at(-1)!
      .body.messages.filter((m) => m.role === 'tool')
      .map((m) => String(m.content));
  }

  it('a tool that answers a JSON-RPC error runs once, and the model reads the error', async () => {
    const [answer] = await run({ name: 'h__rpcerror', arguments: {} });
    expect(answer).toMatch(/^Error: MCPToolClient tool call failed: streamable-http:.*boom/);
    expect(mcp.count('rpcerror')).toBe(1);
  });

  it('a tool that outlasts tool_call_timeout runs once, and its request stream is closed', async () => {
    const [answer] = await run({ name: 'h__hang', arguments: {} });
    expect(answer).toMatch(/timed out/i);
    expect(mcp.count('hang')).toBe(1);
    await eventually(() => expect(mcp.closed.get('hang')).toBe(1));
  });

  it("another call's failure neither aborts nor sends again a call in flight on the shared session", async () => {
    const before = mcp.count('slow');
    const answers = await run(
      { name: 'h__slow', arguments: { ms: 1000 } },
      { name: 'h__rpcerror', arguments: {} },
    );
    expect(answers[0]).toBe(`done #${before + 1}`);
    expect(answers[1]).toMatch(/boom/);
    expect(mcp.count('slow')).toBe(before + 1);
  });

  it('an answer over max_response_bytes fails the call at once, naming the limit', async () => {
    const [answer] = await run({ name: 'h__big', arguments: { bytes: 1_000_000 } });
    expect(answer).toMatch(/answered more than 100000 bytes/);
    expect(mcp.count('big')).toBe(1);
  });

  it('a server that restarted (its session forgotten) gets the call once, on a new session', async () => {
    await run({ name: 'h__slow', arguments: { ms: 1 } });
    const before = mcp.count('slow');
    const initializes = mcp.methods.filter((m) => m === 'initialize').length;
    mcp.forgetSessions();
    const [answer] = await run({ name: 'h__slow', arguments: { ms: 1 } });
    expect(answer).toBe(`done #${before + 1}`);
    expect(mcp.methods.filter((m) => m === 'initialize').length).toBe(initializes + 1);
  });

  it("a cancelled run's call closes its request stream at once", async () => {
    llm.script(reply.tools([{ name: 'h__slow', arguments: { ms: 30_000 }, id: 'c0' }]));
    const jobs = jobsAt(t.url);
    const closedBefore = mcp.closed.get('slow') ?? 0;
    const before = mcp.count('slow');
    await jobs.submit({ input_message: 'go', job_id: 'cancelled-call', sync_timeout: 0 });
    await eventually(() => expect(mcp.count('slow')).toBe(before + 1));
    await jobs.cancel('cancelled-call');
    await eventually(() => expect(mcp.closed.get('slow')).toBe(closedBefore + 1));
    expect(mcp.count('slow')).toBe(before + 1);
  });
});

describe('mcp_client with a stdio server that dies mid-call', () => {
  it("the model reads a plain error; the server's stderr goes to the server log only", async () => {
    const llm = await FakeLlm.start();
    const log = new LogCapture();
    const yaml = agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['local'] },
      {},
      {},
      {
        function_groups: {
          local: {
            _type: 'mcp_client',
            server: {
              transport: 'stdio',
              command: 'node',
              args: [resolve(__dirname, '../utils/mcp-stdio-dying-server.js')],
            },
          },
        },
      },
    );
    const t = await startLoggedApp(configFrom(yaml), log);
    try {
      llm.script(reply.tools([{ name: 'local__die', arguments: {}, id: 'c1' }]), reply.text('gone'));
      await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
      const answer = String(llm.lastMessage(1).content);
      expect(answer).toMatch(/^Error: MCPToolClient tool call failed: stdio:node: /);
      expect(answer).not.toMatch(/secret-config|stderr/);
      await eventually(() => expect(log.warnings('secret-config.yml')).toHaveLength(1));
    } finally {
      await t.close();
      await llm.close();
    }
  });
});
