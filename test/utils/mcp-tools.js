/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by `node` itself */
// The MCP tools the suite's MCP servers offer (an McpServer from the SDK), shared by the streamable
// HTTP server (mcp-servers.ts) and the stdio one (mcp-stdio-server.js). Plain CommonJS so `node` runs it.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { z } = require('zod');

/** `name` tells the servers apart in answers (`http` or `stdio`). */
function testMcpServer(name) {
  const server = new McpServer({ name: `test-${name}`, version: '1.0.0' });
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } },
    ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  server.registerTool(
    'lookup',
    { description: 'Looks a word up', inputSchema: { word: z.string() } },
    ({ word }) => ({
      content: [
        { type: 'text', text: `${word}: first meaning (${name})` },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
        { type: 'text', text: `${word}: second meaning` },
      ],
    }),
  );
  server.registerTool(
    'fail',
    { description: 'Always fails', inputSchema: { why: z.string() } },
    ({ why }) => ({ isError: true, content: [{ type: 'text', text: `cannot do that: ${why}` }] }),
  );
  server.registerTool('flood', { description: 'x'.repeat(10_000), inputSchema: {} }, () => ({
    content: [{ type: 'text', text: 'y'.repeat(200_000) }],
  }));
  return server;
}

/**
 * A server whose tools' input schemas carry regular-expression patterns (as zod's `regex` lists them):
 * `nested` one that backtracks catastrophically in JavaScript, `backref` one RE2 cannot compile.
 */
function patternMcpServer() {
  const server = new McpServer({ name: 'test-patterns', version: '1.0.0' });
  const echo = ({ word }) => ({ content: [{ type: 'text', text: `got ${word}` }] });
  server.registerTool(
    'nested',
    { description: 'Takes a run of a', inputSchema: { word: z.string().regex(/^(a+)+$/) } },
    echo,
  );
  server.registerTool(
    'backref',
    { description: 'Takes a doubled letter', inputSchema: { word: z.string().regex(/^(a)\1$/) } },
    echo,
  );
  return server;
}

module.exports = { testMcpServer, patternMcpServer };
