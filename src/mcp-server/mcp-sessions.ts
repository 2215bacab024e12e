import { randomUUID } from 'node:crypto';
import { Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { authInfoOf, type CallContext } from './call-context';
import { McpTools } from './mcp-tools';
import { mcpServerSdk } from './mcp-sdk';
import { MemoryEventStore } from './memory-event-store';
import type { RedisEventStore } from './redis-event-store';
import { resumeCall, resumesCall } from './stream-resume';
import { ElicitationRelay } from './elicitation-relay';
import { SharedSessions } from './shared-sessions';
import { callTool, type ToolCallDeps } from './tool-call';
import { exchange, replayInitialize } from './web-exchange';

/** A session nobody has used for this long is closed (a client that never sent DELETE). */
const IDLE_SECONDS = 60 * 60;

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  /** The user id of the identity that opened it: nobody else may use it. */
  owner: string | null;
  lastUsed: number;
  /** Requests whose response is still open (a stream of a call, the GET stream). */
  open: number;
  /** Its SSE messages in Redis, for a stream resumed on any replica (none without Redis). */
  events?: RedisEventStore;
}

/** The face's answer when a request names no session it may use. */
function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The MCP sessions this process serves, one SDK Server and Streamable HTTP transport each (stateful
 * mode: `Mcp-Session-Id`). A session belongs to the identity that opened it; for anyone else it does
 * not exist. With Redis (replicas) a session is recorded there, and a replica that gets a request of
 * a session it has not seen opens its own copy by replaying the session's `initialize`.
 */
@Injectable()
export class McpSessions implements OnModuleInit, OnApplicationShutdown {
  private readonly sessions = new Map<string, Session>();
  private readonly deps: ToolCallDeps;
  private readonly relay: ElicitationRelay;
  private sweeper?: NodeJS.Timeout;

  constructor(
    private readonly tools: McpTools,
    executions: ExecutionService,
    config: ServerConfig,
    private readonly shared: SharedSessions,
  ) {
    this.deps = {
      executions,
      urls: new ExecutionUrls(config.frontEnd.root_path),
      promptTimeoutSeconds: config.general.default_prompt_timeout_seconds,
    };
    this.relay = new ElicitationRelay(shared, executions, this.deps.promptTimeoutSeconds);
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
    const { isInitializeRequest, McpErrorCode } = mcpServerSdk();
    const id = req.headers['mcp-session-id'];
    let session: Session | undefined;
    let body: unknown = req.body;
    if (typeof id === 'string') {
      session = await this.find(id, context);
      if (!session) return jsonRpcError(res, 404, -32001, 'Session not found');
      if (req.method === 'DELETE') await this.shared.remove(id);
      if (req.method === 'POST') {
        body = await this.relay.incoming(id, context.identity, body);
        // Only answers to another replica's elicitations: settled here, nothing for the SDK.
        if (body === undefined) return void res.status(202).end();
      }
    } else if (req.method === 'POST' && isInitializeRequest(body)) {
      session = await this.open(context.identity.userId, undefined, req.body as JSONRPCRequest);
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
    // A call's stream resumed here may belong to a call another replica runs: followed in Redis.
    if (resumesCall(req, current.events)) return resumeCall(current.events, req, res);
    await exchange(current.transport, req, res, authInfoOf(context), body);
  }

  /** The session `id` of this caller: this process's, or another replica's opened here too. */
  private async find(id: string, context: CallContext): Promise<Session | undefined> {
    const owner = context.identity.userId;
    let session = this.sessions.get(id);
    if (session) {
      if (session.owner !== owner) return undefined;
      if (await this.shared.touch(id, IDLE_SECONDS)) return session;
      // Ended on another replica (DELETE) or expired in the shared store: gone here too.
      this.forget(id, session);
      return undefined;
    }
    const stored = await this.shared.load(id);
    if (!stored || stored.owner !== owner) return undefined;
    await this.shared.touch(id, IDLE_SECONDS);
    session = await this.open(owner, id);
    if (!(await replayInitialize(session.transport, stored.initialize))) {
      this.forget(id, session);
      return undefined;
    }
    return session;
  }

  /** A new session, or (`id`) this process's copy of another replica's session. */
  /**
   * A session's SDK server and transport: a new one (`initialize`: the client's request, recorded for
   * the other replicas before the answer leaves, so a balancer may send the next request anywhere) or
   * this process's copy of another replica's (`id`).
   */
  private async open(owner: string | null, id?: string, initialize?: JSONRPCRequest): Promise<Session> {
    const sdk = mcpServerSdk();
    const { Server, WebStandardStreamableHTTPServerTransport, McpError, McpErrorCode } = sdk;
    const server = new Server(
      { name: 'interlude', version: process.env.npm_package_version ?? '0.1.0' },
      { capabilities: { tools: {} } },
    );
    const sessionId = id ?? randomUUID();
    const events = this.shared.events(sessionId, IDLE_SECONDS);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => sessionId,
      eventStore: events ?? new MemoryEventStore(),
      onsessioninitialized: async (sessionId) => {
        this.sessions.set(sessionId, session);
        if (initialize) await this.shared.save(sessionId, { owner, initialize }, IDLE_SECONDS);
      },
      onsessionclosed: (sessionId) => void this.sessions.delete(sessionId),
    });
    const session: Session = { transport, server, owner, lastUsed: Date.now(), open: 0, events };
    server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
      tools: this.tools.list().map((tool) => McpTools.describe(tool)),
    }));
    server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
      const tool = this.tools.find(request.params.name);
      if (!tool) throw new McpError(McpErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      return callTool(this.deps, server, tool, request.params.arguments ?? {}, extra);
    });
    await server.connect(transport);
    // After connect (the server holds the transport): what it sends goes through the relay.
    const send = transport.send.bind(transport);
    transport.send = async (message, options) =>
      send(await this.relay.outgoing(transport.sessionId, message), options);
    return session;
  }

  private forget(id: string, session: Session): void {
    this.sessions.delete(id);
    void session.transport.close();
  }

  private sweep(now = Date.now()): void {
    for (const [id, session] of this.sessions) {
      // A session with a stream open is in use though it sends nothing: kept alive for every replica.
      if (session.open > 0) void this.shared.touch(id, IDLE_SECONDS).catch(() => undefined);
      if (session.open > 0 || now - session.lastUsed < IDLE_SECONDS * 1000) continue;
      this.forget(id, session);
    }
  }
}
