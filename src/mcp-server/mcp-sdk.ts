/* eslint-disable @typescript-eslint/no-require-imports */
type ServerModule = typeof import('@modelcontextprotocol/sdk/server/index.js');
type TransportModule = typeof import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js');
type TypesModule = typeof import('@modelcontextprotocol/sdk/types.js');

/** What the MCP server face uses of the SDK. */
export interface McpServerSdk {
  Server: ServerModule['Server'];
  WebStandardStreamableHTTPServerTransport: TransportModule['WebStandardStreamableHTTPServerTransport'];
  CallToolRequestSchema: TypesModule['CallToolRequestSchema'];
  ListToolsRequestSchema: TypesModule['ListToolsRequestSchema'];
  McpError: TypesModule['McpError'];
  McpErrorCode: TypesModule['ErrorCode'];
  isInitializeRequest: TypesModule['isInitializeRequest'];
}

let loaded: McpServerSdk | undefined;

/**
 * The SDK's server side, loaded by the face's first request, not at start: loading it builds the
 * protocol's few hundred zod schemas and an Ajv validator (about 20 MiB more idle RSS and a larger
 * young generation for a server nobody has called over MCP yet). It stays outside the bundle
 * (scripts/build-server.js), as the MCP client side does.
 */
export function mcpServerSdk(): McpServerSdk {
  if (loaded) return loaded;
  const { Server } = require('@modelcontextprotocol/sdk/server/index.js') as ServerModule;
  const { WebStandardStreamableHTTPServerTransport } =
    require('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js') as TransportModule;
  const types = require('@modelcontextprotocol/sdk/types.js') as TypesModule;
  loaded = {
    Server,
    WebStandardStreamableHTTPServerTransport,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
    McpErrorCode: types.ErrorCode,
    isInitializeRequest: types.isInitializeRequest,
  };
  return loaded;
}
