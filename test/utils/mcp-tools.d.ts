import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export function testMcpServer(name: string): McpServer;
export function patternMcpServer(): McpServer;
