import { Logger } from '@nestjs/common';
import { lastUserText } from '../chat-input';
import {
  GROUP_SEPARATOR,
  type BuildContext,
  type BuiltFunction,
  type BuiltFunctionGroup,
  type FunctionGroupType,
} from '../function-type';
import { ScriptedInput } from '../functions/scripted.function';
import { checkedArguments, type JsonSchema } from '../tools/json-schema';
import { authorizedProviders, checkMcpClient, McpClientConfig } from './mcp-client.config';
import type { WorkflowContext } from '../workflow-context';
import type { HeaderAuthConfig } from './mcp-auth.config';
import { authorizedFetch, headerAuth } from './header-auth';
import { McpConnection, type CallResult, type FetchAuth } from './mcp-connection';
import { bounded, claimedNames, MCP_LIMITS, McpToolError, resultText, toolSchema } from './mcp-tool-shapes';

/** How long `GET /mcp/client/tool/list` reuses a server's listing. */
const LISTING_TTL_MS = 5000;
import { asCaller, isAuthorizationFailure, oauthBearerFetch } from './mcp-oauth-bearer';

/** How a group's client shows in `GET /mcp/client/tool/list` (NAT's fields). */
export interface McpClientInfo {
  function_group: string;
  server: string;
  transport: string;
  session_healthy: boolean;
  protected: boolean;
  tools: { name: string; description: string; server: string; available: boolean }[];
  total_tools: number;
  available_tools: number;
}

/** A group that can describe its MCP client (the tool list route finds them by this). */
export interface McpClientGroup extends BuiltFunctionGroup {
  describe(): Promise<McpClientInfo>;
  /** Why its tools are not listed yet (an `mcp_oauth2` server, before a user has authorized). */
  readonly waitingForUser?: string;
}

export function isMcpClientGroup(group: BuiltFunctionGroup): group is McpClientGroup {
  return typeof (group as Partial<McpClientGroup>).describe === 'function';
}

/** A user's own session with the server (`per_user_mcp_client`), closed after it idles. */
interface UserSession {
  connection: McpConnection;
  idle: NodeJS.Timeout;
}

class McpGroup implements McpClientGroup {
  private readonly connection: McpConnection;
  /** `per_user_mcp_client`: each user's calls go through a session of their own, by user id. */
  private readonly sessions = new Map<string, UserSession>();
  private readonly outbound: BuildContext['outbound'];
  /** Its `server.auth_provider`'s credentials, on every session's requests. */
  private readonly auth?: FetchAuth;
  /** An `mcp_oauth2` provider's name: each user's session carries that user's own token. */
  private readonly oauth?: string;
  waitingForUser?: string;
  private tools = new Map<string, BuiltFunction>();
  /** Short name offered to the model → the MCP tool it calls. */
  private readonly originals = new Map<string, string>();
  private connected?: Promise<void>;
  /** The last look at the server's listing (`describe`), started at `at`. */
  private listing?: { at: number; names: Promise<Set<string> | undefined> };
  private readonly logger = new Logger('McpClient');

  constructor(
    private readonly config: McpClientConfig,
    private readonly name: string,
    context: BuildContext,
    readonly type: 'mcp_client' | 'per_user_mcp_client' = 'mcp_client',
  ) {
    this.outbound = context.outbound;
    const provider = config.server.auth_provider;
    const entry = provider === undefined ? undefined : context.authProvider(provider);
    if (entry?.type === 'mcp_oauth2') {
      this.oauth = provider!;
      this.auth = (base) => oauthBearerFetch(base, provider!);
    } else if (entry?.config) {
      const header = headerAuth(entry.config as HeaderAuthConfig, context.outbound);
      this.auth = (base) => authorizedFetch(base, header);
    }
    this.connection = this.newConnection();
  }

  private newConnection(): McpConnection {
    const authTimeout = this.oauth ? this.config.auth_flow_timeout : undefined;
    return new McpConnection(this.config, this.outbound, this.auth, authTimeout);
  }

  /**
   * The session a call goes through: the group's own for `mcp_client`; for `per_user_mcp_client` the
   * caller's (anonymous callers share one), opened at their first call, the least recently used closed
   * past `max_sessions`, each closed after `session_idle_timeout` seconds unused. Behind `mcp_oauth2`
   * every user has a session of their own (an anonymous caller one per execution), carrying their token.
   */
  private sessionFor(ctx: WorkflowContext): McpConnection {
    if (this.type === 'mcp_client' && !this.oauth) return this.connection;
    const { userId } = ctx.identity;
    const key = userId ?? (this.oauth ? `execution:${ctx.executionId}` : '');
    const existing = this.sessions.get(key);
    if (existing) clearTimeout(existing.idle);
    const connection = existing?.connection ?? this.newConnection();
    this.sessions.delete(key);
    const idle = setTimeout(() => this.endSession(key), this.config.session_idle_timeout * 1000).unref();
    this.sessions.set(key, { connection, idle });
    if (this.sessions.size > this.config.max_sessions) this.endSession(this.sessions.keys().next().value!);
    return connection;
  }

  private endSession(key: string): void {
    const session = this.sessions.get(key);
    if (!session) return;
    clearTimeout(session.idle);
    this.sessions.delete(key);
    void session.connection.close();
  }

  /**
   * Lists the server's tools once. Behind `mcp_oauth2` the listing needs a user's token: at start-up (no
   * user) a 401 leaves the tools unlisted (`waitingForUser`) instead of failing or waiting, and the first
   * run that needs them lists them as its user, who is asked to authorize if need be.
   */
  async connect(asker?: WorkflowContext): Promise<void> {
    for (;;) {
      const mine = this.connected === undefined;
      this.connected ??= this.load(asker).then(
        () => (this.waitingForUser = undefined),
        (err: Error) => {
          this.connected = undefined;
          const error = new Error(`function_groups.${this.name}: cannot list the tools of ${err.message}`, {
            cause: err,
          });
          // A caller whose run needs the group reads why (its server as /mcp/client/tool/list shows it,
          // URLs redacted); a stdio server's last words (its stderr) stay in the server log.
          if (this.config.server.transport !== 'stdio') Object.assign(error, { expose: true });
          throw error;
        },
      );
      try {
        return await this.connected;
      } catch (err) {
        if (!this.oauth || !isAuthorizationFailure(err)) throw err;
        if (!asker) {
          this.waitingForUser = (err as Error).message;
          return;
        }
        // A start-up listing (no user) failed: this run's user lists them.
        if (mine) throw err;
      }
    }
  }

  functions(): Map<string, BuiltFunction> {
    return this.tools;
  }

  /** `per_user_mcp_client`: listed at the first call (or the first look at the tool list), as NAT does. */
  get connectsOnFirstUse(): boolean {
    return this.type === 'per_user_mcp_client';
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.keys()].map((key) => this.sessions.get(key)!.connection);
    for (const key of [...this.sessions.keys()]) clearTimeout(this.sessions.get(key)!.idle);
    this.sessions.clear();
    await Promise.all([this.connection.close(), ...sessions.map((c) => c.close())]);
  }

  /**
   * For `GET /mcp/client/tool/list` (anonymous by default): the server's listing is read at most once
   * per `LISTING_TTL_MS`, concurrent callers sharing it, and never reconnects a session runs use.
   */
  async describe(): Promise<McpClientInfo> {
    // A group not listed yet (per-user, before anyone used it) is listed now if its server answers.
    if (this.connectsOnFirstUse && !this.listedLately) await this.connect().catch(() => undefined);
    const listed = await this.availability();
    const tools = [...this.tools.entries()]
      .map(([full, fn]) => {
        const name = full.slice(this.name.length + GROUP_SEPARATOR.length);
        const available = listed?.has(this.originals.get(name)!) ?? false;
        return { name, description: fn.description, server: this.connection.serverName, available };
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return {
      function_group: this.name,
      server: this.connection.serverName,
      transport: this.config.server.transport,
      session_healthy: listed !== undefined,
      protected: this.config.server.auth_provider !== undefined,
      tools,
      total_tools: tools.length,
      available_tools: tools.filter((t) => t.available).length,
    };
  }

  private get listedLately(): boolean {
    return this.listing !== undefined && Date.now() - this.listing.at < LISTING_TTL_MS;
  }

  /** The names the server lists now (undefined: it does not answer), shared for `LISTING_TTL_MS`. */
  private availability(): Promise<Set<string> | undefined> {
    if (this.listing && this.listedLately) return this.listing.names;
    const names = this.connection.listTools().then(
      (tools) => new Set(tools.map((t) => t.name)),
      () => undefined,
    );
    this.listing = { at: Date.now(), names };
    return names;
  }

  private async load(asker?: WorkflowContext): Promise<void> {
    const as = this.oauth ? asker : undefined;
    const session = as ? this.sessionFor(as) : this.connection;
    const listed = await asCaller(as, () => session.listTools());
    const overrides = this.config.tool_overrides ?? {};
    const missing = this.config.exclude.filter((n) => !listed.some((t) => t.name === n));
    if (missing.length)
      throw new Error(
        `${this.connection.serverName}: exclude names tools it does not have: ${missing.join(', ')}`,
      );
    const tools = new Map<string, BuiltFunction>();
    const offered = listed.filter(
      (tool) =>
        !this.config.exclude.includes(tool.name) &&
        (!this.config.include.length || this.config.include.includes(tool.name)) &&
        /^[A-Za-z0-9_-]{1,64}$/.test(overrides[tool.name]?.alias ?? tool.name),
    );
    const { names, leftOut } = claimedNames(offered, overrides);
    for (const why of leftOut)
      this.logger.warn(`function_groups.${this.name}: ${this.connection.serverName}: ${why}`);
    for (const [tool, short] of names) {
      const schema = toolSchema(tool);
      if (typeof schema === 'string')
        this.logger.warn(
          `function_groups.${this.name}: ${this.connection.serverName}: tool ${tool.name}: ${schema}`,
        );
      const description = bounded(
        overrides[tool.name]?.description ?? (tool.description || `MCP Tool ${tool.name}`),
        MCP_LIMITS.description,
      );
      this.originals.set(short, tool.name);
      tools.set(`${this.name}${GROUP_SEPARATOR}${short}`, this.toolFunction(tool.name, description, schema));
    }
    this.tools = tools;
  }

  private toolFunction(original: string, description: string, schema: JsonSchema | string): BuiltFunction {
    const parameters = typeof schema === 'string' ? { type: 'object' } : schema;
    return {
      type: this.type,
      description,
      parameters,
      input: { kind: 'schema', dto: ScriptedInput },
      fromChat: (request) => ({ input_message: lastUserText(request.messages) }),
      run: async (args, ctx) => {
        if (typeof schema === 'string')
          throw new McpToolError(
            `MCPToolClient tool call failed: ${this.connection.serverName}: tool ${original}: ${schema}`,
          );
        // The model's arguments are untrusted: they must fit the server's schema before they are sent.
        const checked = checkedArguments<Record<string, unknown>>(schema, args ?? {});
        let result: CallResult;
        try {
          const session = this.sessionFor(ctx);
          const call = () => session.callTool(original, checked, ctx.signal);
          result = await (this.oauth ? asCaller(ctx, call) : call());
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          throw new McpToolError(`MCPToolClient tool call failed: ${(err as Error).message}`);
        }
        return resultText(result);
      },
    };
  }
}

/** `function_groups.<g>: {_type: mcp_client, …}` (NeMo Agent Toolkit's MCP client function group). */
export const mcpClientGroupType: FunctionGroupType<McpClientConfig> = {
  type: 'mcp_client',
  description: "An MCP server's tools, named <group>__<tool>",
  config: McpClientConfig,
  check: checkMcpClient,
  references: authorizedProviders,
  build: (config, context) => new McpGroup(config, context.name, context),
};

/**
 * `function_groups.<g>: {_type: per_user_mcp_client, …}` (NAT's): the same tools, listed once at their
 * first use, not at start-up (NAT builds a per-user group at a user's first request, so a server that is
 * down does not stop start-up), and each user's calls go through an MCP session of their own, as NAT
 * builds a client per user.
 */
export const perUserMcpClientGroupType: FunctionGroupType<McpClientConfig> = {
  type: 'per_user_mcp_client',
  description: "An MCP server's tools, named <group>__<tool>, with a session per user",
  config: McpClientConfig,
  check: checkMcpClient,
  references: authorizedProviders,
  build: (config, context) => new McpGroup(config, context.name, context, 'per_user_mcp_client'),
};
