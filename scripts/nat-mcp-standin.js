// The MCP server nat-coverage.js --mcp points its rewritten configs at, standing in for the user's own
// `nat mcp serve`: a real MCP server (the SDK's McpServer over its streamable HTTP transport, stateless)
// on a free loopback port. Each rewritten config gets a path of its own, `/<n>/mcp`, whose server offers
// exactly the names that config moved behind MCP, one tool each. A tool answers with the arguments it
// received: what a Python function would do with them cannot be known here.
const http = require('node:http');
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StreamableHTTPServerTransport } = require('@modelcontextprotocol/sdk/server/streamableHttp.js');
const { z } = require('zod');

function toolServer(names) {
  const server = new McpServer({ name: 'nat-mcp-serve-standin', version: '1.0.0' });
  for (const name of names) {
    server.registerTool(
      name,
      {
        description: `Stands in for the NAT Python component "${name}" (served by nat mcp serve)`,
        // NAT's own tools take their function's input schema; a text input fits most of them.
        inputSchema: { input_message: z.string().optional() },
      },
      (args) => ({ content: [{ type: 'text', text: `${name} received ${JSON.stringify(args)}` }] }),
    );
  }
  return server;
}

/** Starts the stand-in; `urlFor(names)` registers one config's tools and gives the URL to list them at. */
async function startStandIn() {
  const toolSets = [];
  const http_ = http.createServer(async (req, res) => {
    const id = /^\/(\d+)\/mcp$/.exec(req.url ?? '')?.[1];
    const names = id === undefined ? undefined : toolSets[Number(id)];
    if (!names) return void res.writeHead(404).end();
    if (req.method !== 'POST') return void res.writeHead(405, { allow: 'POST' }).end();
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return void res.writeHead(400).end();
    }
    const server = toolServer(names);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => http_.listen(0, '127.0.0.1', resolve));
  const { port } = http_.address();
  return {
    host: '127.0.0.1',
    urlFor(names) {
      toolSets.push([...names]);
      return `http://127.0.0.1:${port}/${toolSets.length - 1}/mcp`;
    },
    close: () =>
      new Promise((resolve) => {
        http_.closeAllConnections();
        http_.close(() => resolve());
      }),
  };
}

module.exports = { startStandIn };
