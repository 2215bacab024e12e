import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { FakeLlm } from './fake-llm';
import { agentYaml } from './fake-llm-config';

/** A tool as the server lists it: anything, since a hostile server lists what it likes. */
export type ListedTool = Record<string, unknown>;

/** A page of tools (with the cursor of the next), or all of them. */
export type Listing = (cursor?: string) => ListedTool[] | { tools: ListedTool[]; nextCursor?: string };

/**
 * Stands for an input schema nested 10,000 levels deep, written into the listing's text by hand
 * (JSON.stringify cannot write it, so the SDK cannot send it).
 */
export const TOO_DEEP = '__too_deep__';
const tooDeep = `${'{"type":"object","properties":{"a":'.repeat(10_000)}{"type":"string"}${'}}'.repeat(10_000)}`;

const obj = (properties: Record<string, unknown> = {}) => ({ type: 'object', properties });

/**
 * The tools `HostileMcpServer` answers, by name (other names answer "default"):
 * - `slow` waits `ms` (default 1500) and answers `done #<calls so far>`: a side effect that takes time.
 * - `rpcerror` answers a JSON-RPC error; `hang` never answers.
 * - `big` answers `bytes` of text (default 1 MB) on the request's SSE stream.
 * - `structured` answers `structuredContent: {r: "a"×n + "!"}` against an outputSchema `^(a+)+$` (ReDoS).
 */
export const HOSTILE_TOOLS: ListedTool[] = [
  { name: 'slow', inputSchema: obj({ ms: { type: 'number' } }) },
  { name: 'rpcerror', inputSchema: obj() },
  { name: 'hang', inputSchema: obj() },
  { name: 'big', inputSchema: obj({ bytes: { type: 'number' } }) },
  {
    name: 'structured',
    inputSchema: obj({ n: { type: 'number' } }),
    outputSchema: obj({ r: { type: 'string', pattern: '^(a+)+$' } }),
  },
];

/**
 * An MCP server made with the SDK's low-level `Server` (which sends what it is given, unchecked) over
 * stateful streamable HTTP, answering on SSE streams. It counts what it receives and sees each request's
 * connection close; `forgetSessions()` is a restart: the old session ids get 404 "Session not found".
 */
export class HostileMcpServer {
  /** Tool calls received, by tool name. */
  readonly calls = new Map<string, number>();
  /** JSON-RPC methods received, in order. */
  readonly methods: string[] = [];
  /** Tool calls whose HTTP request the client closed (or that ended), by tool name. */
  readonly closed = new Map<string, number>();
  /** Every `tools/list` answers a JSON-RPC error while set. */
  failListing = false;
  private readonly sessions = new Map<string, StreamableHTTPServerTransport>();
  private server?: HttpServer;
  private port = 0;

  private constructor(private readonly listing: Listing) {}

  static async start(listing: Listing = () => HOSTILE_TOOLS): Promise<HostileMcpServer> {
    const s = new HostileMcpServer(listing);
    s.server = createServer((req, res) => void s.handle(req, res));
    await new Promise<void>((r) => s.server!.listen(0, '127.0.0.1', r));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }

  count(name: string): number {
    return this.calls.get(name) ?? 0;
  }

  forgetSessions(): void {
    for (const transport of this.sessions.values()) void transport.close();
    this.sessions.clear();
  }

  async stop(): Promise<void> {
    this.forgetSessions();
    this.server?.closeAllConnections();
    await new Promise<void>((r) => this.server?.close(() => r()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
    const message = body as { method?: string; params?: { name?: string } } | undefined;
    if (message?.method) this.methods.push(message.method);
    const tool = message?.method === 'tools/call' ? String(message.params?.name) : undefined;
    if (tool) res.on('close', () => this.closed.set(tool, (this.closed.get(tool) ?? 0) + 1));
    const id = req.headers['mcp-session-id'] as string | undefined;
    let transport = id ? this.sessions.get(id) : undefined;
    if (id && !transport) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
      );
      return;
    }
    if (!transport) {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void this.sessions.set(sid, created),
      });
      await this.mcpServer().connect(created);
      transport = created;
    }
    if (message?.method === 'tools/list' && this.answerTooDeep(body as { id: number }, res)) return;
    await transport.handleRequest(req, res, body);
  }

  /** A listing with a `TOO_DEEP` schema is written by hand: the SDK's JSON.stringify cannot write it. */
  private answerTooDeep(request: { id: number }, res: ServerResponse): boolean {
    const page = this.listing();
    const text = JSON.stringify({
      jsonrpc: '2.0',
      id: request.id,
      result: Array.isArray(page) ? { tools: page } : page,
    });
    if (!text.includes(`"${TOO_DEEP}"`)) return false;
    res.writeHead(200, { 'content-type': 'application/json' }).end(text.replaceAll(`"${TOO_DEEP}"`, tooDeep));
    return true;
  }

  private mcpServer(): Server {
    const server = new Server({ name: 'hostile', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, (request) => {
      if (this.failListing) throw new McpError(-32603, 'listing broke');
      const page = this.listing(request.params?.cursor);
      return (Array.isArray(page) ? { tools: page } : page) as never;
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as Record<string, number>;
      const n = this.count(name) + 1;
      this.calls.set(name, n);
      const text = (t: string): CallToolResult => ({ content: [{ type: 'text', text: t }] });
      switch (name) {
        case 'slow':
          await new Promise((r) => setTimeout(r, args.ms ?? 1500).unref());
          return text(`done #${n}`);
        case 'rpcerror':
          throw new McpError(-32000, 'boom');
        case 'hang':
          return new Promise<never>((_, reject) => extra.signal.addEventListener('abort', reject));
        case 'big':
          return text('B'.repeat(args.bytes ?? 1024 * 1024));
        case 'structured':
          return { ...text('structured'), structuredContent: { r: `${'a'.repeat(args.n ?? 30)}!` } };
        default:
          return text('default');
      }
    });
    return server;
  }
}

/**
 * A tool calling agent whose tools are `mcp`'s (the group `h`), as the e2e suites about hostile MCP
 * servers run it: `group` and `outbound` add to (or replace) the group's and `general.outbound`'s settings.
 */
export function hostileMcpAgentYaml(
  llm: FakeLlm,
  mcp: HostileMcpServer,
  group: Record<string, unknown> = {},
  outbound: Record<string, unknown> = {},
): string {
  return agentYaml(
    llm,
    { _type: 'tool_calling_agent', tool_names: ['h'] },
    {},
    {},
    {
      function_groups: {
        h: {
          _type: 'mcp_client',
          server: { transport: 'streamable-http', url: mcp.url },
          tool_call_timeout: 5,
          reconnect_initial_backoff: 0.01,
          reconnect_max_backoff: 0.02,
          ...group,
        },
      },
      general: { outbound: { allow_hosts: ['127.0.0.1'], ...outbound } },
    },
  );
}
