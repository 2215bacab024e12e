import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode as McpErrorCode,
  isInitializeRequest,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { authInfoOf, type CallContext } from './call-context';
import { McpTools } from './mcp-tools';
import { MemoryEventStore } from './memory-event-store';
import { callTool, type ToolCallDeps } from './tool-call';

/** A session nobody has used for this long is closed (a client that never sent DELETE). */
const IDLE_MS = 60 * 60 * 1000;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: Server;
  /** The user id of the identity that opened it: nobody else may use it. */
  owner: string | null;
  lastUsed: number;
  /** Requests whose response is still open (a stream of a call, the GET stream). */
  open: number;
}

/** The face's answer when a request names no session it may use. */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The MCP sessions of this process, one SDK Server and Streamable HTTP transport each (stateful mode:
 * `Mcp-Session-Id`). A session belongs to the identity that opened it; for anyone else it does not exist.
 */
@Injectable()
export class McpSessions implements OnModuleInit, OnApplicationShutdown {
  private readonly sessions = new Map<string, Session>();
  private readonly deps: ToolCallDeps;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly tools: McpTools,
    executions: ExecutionService,
    private readonly config: ServerConfig,
  ) {
    this.deps = {
      executions,
      urls: new ExecutionUrls(config.frontEnd.root_path),
      promptTimeoutSeconds: config.general.default_prompt_timeout_seconds,
    };
  }

  onModuleInit(): void {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close()));
  }

  async handle(req: Request, res: Response, context: CallContext): Promise<void> {
    const id = req.headers['mcp-session-id'];
    let session: Session | undefined;
    if (typeof id === 'string') {
      session = this.sessions.get(id);
      if (!session || session.owner !== context.identity.userId) {
        return jsonRpcError(res, 404, -32001, 'Session not found');
      }
    } else if (req.method === 'POST' && isInitializeRequest(req.body)) {
      session = await this.open(context);
    } else {
      return jsonRpcError(res, 400, McpErrorCode.InvalidRequest, 'Bad Request: no valid Mcp-Session-Id');
    }
    const current = session;
    current.lastUsed = Date.now();
    current.open++;
    res.once('close', () => {
      current.open--;
      current.lastUsed = Date.now();
    });
    (req as Request & { auth?: unknown }).auth = authInfoOf(context);
    await current.transport.handleRequest(req, res, req.body);
  }

  private async open(context: CallContext): Promise<Session> {
    const server = new Server(
      { name: 'interlude', version: process.env.npm_package_version ?? '0.1.0' },
      { capabilities: { tools: {} } },
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: new MemoryEventStore(),
      onsessioninitialized: (sessionId) => void this.sessions.set(sessionId, session),
      onsessionclosed: (sessionId) => void this.sessions.delete(sessionId),
    });
    const session: Session = { transport, server, owner: context.identity.userId, lastUsed: 0, open: 0 };
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: this.tools.list().map((tool) => McpTools.describe(tool)),
    }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
      const tool = this.tools.find(request.params.name);
      if (!tool) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      return callTool(this.deps, server, tool, request.params.arguments ?? {}, extra);
    });
    await server.connect(transport);
    return session;
  }

  private sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      if (session.open > 0 || now - session.lastUsed < IDLE_MS) continue;
      this.sessions.delete(id);
      void session.transport.close();
    }
  }
}
