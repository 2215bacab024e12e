#!/usr/bin/env node
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run by `node` itself */
// The suite's MCP server over stdio: `node test/utils/mcp-stdio-server.js`.
const { StdioServerTransport } = require('@modelcontextprotocol/sdk/server/stdio.js');
const { testMcpServer } = require('./mcp-tools');

testMcpServer('stdio')
  .connect(new StdioServerTransport())
  .catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
