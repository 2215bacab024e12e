#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by `node` itself */
// An MCP server over stdio whose one tool, `die`, writes its last words to stderr and exits mid-call.
const { McpServer } = require('@modelcontextprotocol/sdk/server/mcp.js');
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');

const server = new McpServer({ name: 'test-dying', version: '1.0.0' });
server.registerTool('die', { description: 'Exits mid-call', inputSchema: {} }, () => {
  process.stderr.write('stderr: internal path /srv/secret-config.yml and a stack trace\n');
  process.exit(1);
});
void server.connect(new StdioServerTransport());
