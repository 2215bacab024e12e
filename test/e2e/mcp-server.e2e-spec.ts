import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpClient, type McpConnection } from '../utils/mcp-client';
import { ECHO_YAML, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';

const TOOLS_YAML = `
functions:
  shout: { _type: echo, description: Shouts it back }
workflow:
  _type: echo
  description: Echoes the message
`;

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;

describe('MCP server face: the workflow and each function as tools (SDK client, Streamable HTTP)', () => {
  let t: TestApp;
  let mcp: McpConnection;
  beforeAll(async () => {
    t = await startApp(TOOLS_YAML);
    mcp = await mcpClient(t.url);
  });
  afterAll(async () => {
    await mcp.close();
    await t.close();
  });

  it('lists each function and the workflow (named by its _type) with their input schemas', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['shout', 'echo']);
    const echo = tools.find((tool) => tool.name === 'echo')!;
    // The config's description, as nat mcp serve takes it.
    expect(echo.description).toBe('Echoes the message');
    expect(echo.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' } },
      required: ['message'],
    });
  });

  it('runs the workflow on tools/call and answers its output as text', async () => {
    const result = (await mcp.client.callTool({
      name: 'echo',
      arguments: { message: 'Hello MCP' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toBe('Hello MCP');
    expect(result.structuredContent).toBeUndefined();
  });

  it('runs a configured function the same way', async () => {
    const result = (await mcp.client.callTool({
      name: 'shout',
      arguments: { message: 'hey' },
    })) as CallToolResult;
    expect(text(result)).toBe('hey');
  });

  it('answers arguments that do not fit the input schema with isError', async () => {
    const result = (await mcp.client.callTool({ name: 'echo', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/^Invalid arguments for echo: message/);
  });

  it('refuses a tool it does not serve with a JSON-RPC error', async () => {
    await expect(mcp.client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(/Unknown tool: nope/);
  });
});

describe('MCP server face: results, errors and config', () => {
  it('gives an object result as structuredContent and as JSON text', async () => {
    const t = await startApp('workflow: { _type: whoami }\n', whoamiRegistry());
    const mcp = await mcpClient(t.url, { headers: { cookie: 'nat-session=ana' } });
    try {
      const result = (await mcp.client.callTool({
        name: 'whoami',
        arguments: { input_message: 'x' },
      })) as CallToolResult;
      const structured = result.structuredContent as { identity: { userId: string; source: string } };
      expect(structured.identity.source).toBe('cookie');
      expect(JSON.parse(text(result))).toEqual(structured);
    } finally {
      await mcp.close();
      await t.close();
    }
  });

  it('answers a failing workflow with isError and its message', async () => {
    const t = await startApp(scriptedYaml(`- fail: { message: 'The tank is empty' }`, 'never'));
    const mcp = await mcpClient(t.url);
    try {
      const result = (await mcp.client.callTool({
        name: 'scripted',
        arguments: { input_message: 'go' },
      })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toBe('The tank is empty');
    } finally {
      await mcp.close();
      await t.close();
    }
  });

  it("serves a chat workflow with nat mcp serve's query schema", async () => {
    const t = await startApp('workflow: { _type: echo, use_openai_api: true }\n');
    const mcp = await mcpClient(t.url);
    try {
      const { tools } = await mcp.client.listTools();
      expect(tools[0].inputSchema).toEqual({
        type: 'object',
        properties: { query: { type: 'string', description: 'User query string' } },
        required: ['query'],
        title: 'ChatRequestQuery',
      });
      const result = (await mcp.client.callTool({
        name: 'echo',
        arguments: { query: 'a chat' },
      })) as CallToolResult;
      expect(text(result)).toBe('a chat');
    } finally {
      await mcp.close();
      await t.close();
    }
  });

  it('serves only the tools general.front_end.mcp.tool_names names', async () => {
    const t = await startApp(`general: { front_end: { mcp: { tool_names: [shout] } } }\n${TOOLS_YAML}`);
    const mcp = await mcpClient(t.url);
    try {
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['shout']);
      await expect(mcp.client.callTool({ name: 'echo', arguments: { message: 'x' } })).rejects.toThrow(
        /Unknown tool/,
      );
    } finally {
      await mcp.close();
      await t.close();
    }
  });

  it('is served at mcp_path, and not at all when it is null', async () => {
    const moved = await startApp(`general: { front_end: { mcp_path: /tools/mcp } }\n${ECHO_YAML}`);
    try {
      const mcp = await mcpClient(moved.url, { path: '/tools/mcp' });
      expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo']);
      await mcp.close();
    } finally {
      await moved.close();
    }
    const off = await startApp(`general: { front_end: { mcp_path: null } }\n${ECHO_YAML}`);
    try {
      await expect(mcpClient(off.url)).rejects.toThrow(/Not Found/);
    } finally {
      await off.close();
    }
  });
});
