import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';

export interface McpConnection {
  client: Client;
  transport: StreamableHTTPClientTransport;
  close(): Promise<void>;
}

/** The SDK's client, connected to a test server's MCP endpoint (initialize done, a session open). */
export async function mcpClient(
  baseUrl: string,
  options: { capabilities?: ClientCapabilities; headers?: Record<string, string>; path?: string } = {},
): Promise<McpConnection> {
  const client = new Client(
    { name: 'interlude-test', version: '1.0.0' },
    { capabilities: options.capabilities ?? {} },
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${options.path ?? '/mcp'}`), {
    requestInit: { headers: options.headers ?? {} },
  });
  await client.connect(transport);
  return {
    client,
    transport,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close();
    },
  };
}
