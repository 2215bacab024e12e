import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { testMcpServer } = require('./mcp-tools.js') as typeof import('./mcp-tools.js');

type McpServer = ReturnType<typeof testMcpServer>;

/** The stdio server's script, for a config's `server.command: node` and `args`. */
export const STDIO_MCP_SERVER = resolve(__dirname, 'mcp-stdio-server.js');

/**
 * The suite's MCP server over streamable HTTP on an ephemeral port (stateless: a server and transport
 * per request, as the SDK's examples do). `stop()` closes the port, `start()` opens it again on the
 * same one.
 */
export class HttpMcpServer {
  private server?: Server;
  /** Tool calls received, by name. */
  readonly calls: { name: string; arguments: unknown }[] = [];
  /** Every JSON-RPC method received, in order (`initialize` once per client session). */
  readonly methods: string[] = [];
  /** The headers of every request received. */
  readonly headers: IncomingMessage['headers'][] = [];

  /**
   * `admit`: a protected server: a request it answers false to gets 401 and is not handled. `tools`:
   * the SDK server that answers (the suite's tools by default).
   */
  private constructor(
    private port: number,
    private readonly admit?: (req: IncomingMessage) => Promise<boolean>,
    private readonly tools: () => McpServer = () => testMcpServer('http'),
  ) {}

  static async start(
    admit?: (req: IncomingMessage) => Promise<boolean>,
    tools?: () => McpServer,
  ): Promise<HttpMcpServer> {
    const s = new HttpMcpServer(0, admit, tools);
    await s.start();
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(this.port, '127.0.0.1', r));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    server?.closeAllConnections();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.headers.push(req.headers);
    if (this.admit && !(await this.admit(req))) {
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      method?: string;
      params?: { name: string; arguments: unknown };
    };
    if (body.method) this.methods.push(body.method);
    if (body.method === 'tools/call' && body.params) this.calls.push(body.params);
    const server = this.tools();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => void transport.close().then(() => server.close()));
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }
}
