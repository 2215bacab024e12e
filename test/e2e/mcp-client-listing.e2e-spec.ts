import { Logger } from '@nestjs/common';
import { FakeLlm, reply } from '../utils/fake-llm';
import {
  HOSTILE_TOOLS,
  HostileMcpServer,
  hostileMcpAgentYaml,
  TOO_DEEP,
  type Listing,
} from '../utils/mcp-hostile-server';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

// What an MCP server's tool listing can make Interlude do: bounded work whoever asks and however
// often, nothing of the server's output schemas run, one odd tool refused alone.

const obj = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties });

describe('mcp_client tool listings', () => {
  let llm: FakeLlm;
  const started: { app: TestApp; mcp: HostileMcpServer }[] = [];
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterEach(async () => {
    llm.reset();
    for (const { app, mcp } of started.splice(0)) {
      await app.close();
      await mcp.stop();
    }
  });
  afterAll(() => llm.close());

  async function start(
    listing?: Listing,
    group?: Record<string, unknown>,
  ): Promise<{ t: TestApp; mcp: HostileMcpServer }> {
    const mcp = await HostileMcpServer.start(listing);
    const t = await startApp(hostileMcpAgentYaml(llm, mcp, group)).catch(async (err: unknown) => {
      await mcp.stop();
      throw err;
    });
    started.push({ app: t, mcp });
    return { t, mcp };
  }

  const toolList = (t: TestApp) => fetch(`${t.url}/mcp/client/tool/list`).then((r) => r.json());
  const listings = (mcp: HostileMcpServer) => mcp.methods.filter((m) => m === 'tools/list').length;

  it("a tool's outputSchema is not run on its result (a ReDoS pattern), and the model reads the text", async () => {
    const { t, mcp } = await start();
    llm.script(reply.tools([{ name: 'h__structured', arguments: { n: 24 }, id: 'c1' }]), reply.text('ok'));
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(llm.lastMessage(1).content).toBe('structured');
    // Once: not refused by the schema, then sent again on a new session that had no schemas.
    expect(mcp.count('structured')).toBe(1);
  });

  it('concurrent looks at GET /mcp/client/tool/list share one tools/list', async () => {
    const { t, mcp } = await start();
    const before = listings(mcp);
    const bodies = await Promise.all(Array.from({ length: 12 }, () => toolList(t)));
    expect(listings(mcp)).toBe(before + 1);
    expect(bodies[11]).toEqual(bodies[0]);
  });

  it('a server that pages for ever is read up to the 256 tools offered, not 20 pages of them', async () => {
    const page = (cursor = '0'): ReturnType<Listing> => ({
      tools: Array.from({ length: 100 }, (_, i) => ({ name: `t${cursor}_${i}`, inputSchema: obj() })),
      nextCursor: String(Number(cursor) + 1),
    });
    const { mcp } = await start(page);
    expect(listings(mcp)).toBe(3);
  });

  it('a listing over 16 MiB in all across pages stops start-up, naming the limit', async () => {
    const page = (cursor = '0'): ReturnType<Listing> => ({
      tools: [{ name: `t${cursor}`, description: 'D'.repeat(5 * 1024 * 1024), inputSchema: obj() }],
      nextCursor: String(Number(cursor) + 1),
    });
    await expect(start(page)).rejects.toThrow(
      /function_groups\.h: cannot list the tools of streamable-http:.*: its tool list is over 16777216 bytes/,
    );
  });

  it("a failing look at the tool list neither aborts nor sends again a run's call in flight", async () => {
    const { t, mcp } = await start();
    llm.script(reply.tools([{ name: 'h__slow', arguments: { ms: 1000 }, id: 'c1' }]), reply.text('ok'));
    const run = postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    while (mcp.count('slow') === 0) await new Promise((r) => setImmediate(r));
    mcp.failListing = true;
    const listed = (await toolList(t)) as { mcp_clients: { session_healthy: boolean }[] };
    expect(listed.mcp_clients[0].session_healthy).toBe(false);
    await run;
    expect(llm.lastMessage(1).content).toBe('done #1');
    expect(mcp.count('slow')).toBe(1);
  });

  it('one malformed tool is refused alone, naming the server and the tool; the others work', async () => {
    const { t, mcp } = await start(() => [
      ...HOSTILE_TOOLS,
      { name: 'arraytype', inputSchema: { type: 'array' } },
      {
        name: 'protokey',
        inputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}') as object,
      },
      { name: 'badout', inputSchema: obj(), outputSchema: obj({ x: { $ref: '#/nowhere' } }) },
      { name: 'toodeep', inputSchema: TOO_DEEP },
    ]);
    llm.script(
      reply.tools([
        { name: 'h__arraytype', arguments: {}, id: 'c1' },
        { name: 'h__toodeep', arguments: {}, id: 'c2' },
        { name: 'h__badout', arguments: {}, id: 'c3' },
        { name: 'h__slow', arguments: { ms: 1 }, id: 'c4' },
      ]),
      reply.text('ok'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    const offered = llm.requests[0].body.tools!.map((x) => x.function.name);
    expect(offered).toEqual(expect.arrayContaining(['h__slow', 'h__arraytype', 'h__protokey', 'h__badout']));
    const answers = llm.requests[1].body.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    const server = `streamable-http:${mcp.url}`;
    expect(answers[0]).toBe(
      `Error: MCPToolClient tool call failed: ${server}: tool arraytype: its input schema is not a JSON schema of type object`,
    );
    expect(answers[1]).toBe(
      `Error: MCPToolClient tool call failed: ${server}: tool toodeep: its input schema is nested too deeply`,
    );
    expect(answers[2]).toBe('default');
    expect(answers[3]).toBe('done #1');
  });

  it('a name listed twice, or listed and also an alias, goes to one tool: the alias first, then the first listed', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { t, mcp } = await start(
        () => [
          { name: 'dup', description: 'first', inputSchema: obj() },
          { name: 'dup', description: 'second', inputSchema: obj() },
          { name: 'slow', inputSchema: obj({ ms: { type: 'number' } }) },
          { name: 'rpcerror', inputSchema: obj() },
        ],
        { tool_overrides: { rpcerror: { alias: 'slow' } } },
      );
      llm.script(reply.tools([{ name: 'h__slow', arguments: {}, id: 'c1' }]), reply.text('ok'));
      await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
      const offered = llm.requests[0].body.tools!.map((x) => [x.function.name, x.function.description]);
      expect(offered).toEqual([
        ['h__dup', 'first'],
        ['h__slow', 'MCP Tool rpcerror'],
      ]);
      // The alias's tool answered, whatever the server lists first.
      expect(mcp.calls.get('rpcerror')).toBe(1);
      expect(mcp.calls.get('slow')).toBeUndefined();
      expect(warn.mock.calls.map((args) => String(args[0]))).toEqual(
        expect.arrayContaining([
          expect.stringContaining('tool dup is left out: "dup" is already the name of another tool it lists'),
          expect.stringContaining(
            `tool slow is left out: "slow" is already the name of tool rpcerror's alias`,
          ),
        ]),
      );
    } finally {
      warn.mockRestore();
    }
  });
});
