import { lastUserText } from '../chat-input';
import {
  GROUP_SEPARATOR,
  type BuildContext,
  type BuiltFunction,
  type BuiltFunctionGroup,
  type FunctionGroupType,
} from '../function-type';
import { ScriptedInput } from '../functions/scripted.function';
import { checkedArguments, schemaProblem, type JsonSchema } from '../tools/json-schema';
import { checkMcpClient, McpClientConfig } from './mcp-client.config';
import { McpConnection, type CallResult, type ListedTool } from './mcp-connection';

/** Bounds on what an MCP server (untrusted) may put in front of the model. */
export const MCP_LIMITS = { description: 2000, schemaBytes: 32 * 1024, result: 64 * 1024, tools: 256 };

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
}

export function isMcpClientGroup(group: BuiltFunctionGroup): group is McpClientGroup {
  return typeof (group as Partial<McpClientGroup>).describe === 'function';
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}

/** NAT joins a result's text parts with newlines and ignores the rest; `isError` becomes its failure text. */
function resultText(result: CallResult): string {
  const text = bounded(
    (result.content ?? [])
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text)
      .join('\n'),
    MCP_LIMITS.result,
  );
  if (result.isError) throw new McpToolError(`MCPToolClient tool call failed: ${text}`);
  return text;
}

/** A tool's `isError` result: the agent hands it to the model as the tool's error. */
export class McpToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'McpToolError';
  }
}

/** The server's schema as the model and the argument check read it, or why it is refused. */
function toolSchema(tool: ListedTool): JsonSchema | string {
  const { $schema: _ignored, ...schema } = (tool.inputSchema ?? { type: 'object' }) as JsonSchema;
  if (JSON.stringify(schema).length > MCP_LIMITS.schemaBytes)
    return `its input schema is over ${MCP_LIMITS.schemaBytes} bytes`;
  const problem = schemaProblem(schema);
  return problem ? `its input schema does not compile: ${problem}` : schema;
}

class McpGroup implements McpClientGroup {
  readonly type = 'mcp_client';
  private readonly connection: McpConnection;
  private tools = new Map<string, BuiltFunction>();
  /** Short name offered to the model → the MCP tool it calls. */
  private readonly originals = new Map<string, string>();
  private connected?: Promise<void>;

  constructor(
    private readonly config: McpClientConfig,
    private readonly name: string,
    context: BuildContext,
  ) {
    this.connection = new McpConnection(config, context.outbound);
  }

  connect(): Promise<void> {
    this.connected ??= this.load().catch((err: Error) => {
      this.connected = undefined;
      throw new Error(`function_groups.${this.name}: cannot list the tools of ${err.message}`);
    });
    return this.connected;
  }

  functions(): Map<string, BuiltFunction> {
    return this.tools;
  }

  close(): Promise<void> {
    return this.connection.close();
  }

  async describe(): Promise<McpClientInfo> {
    const listed = await this.connection.listTools().then(
      (tools) => new Set(tools.map((t) => t.name)),
      () => undefined,
    );
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

  private async load(): Promise<void> {
    const listed = (await this.connection.listTools()).slice(0, MCP_LIMITS.tools);
    const overrides = this.config.tool_overrides ?? {};
    const missing = this.config.exclude.filter((n) => !listed.some((t) => t.name === n));
    if (missing.length)
      throw new Error(
        `${this.connection.serverName}: exclude names tools it does not have: ${missing.join(', ')}`,
      );
    const tools = new Map<string, BuiltFunction>();
    for (const tool of listed) {
      const short = overrides[tool.name]?.alias ?? tool.name;
      if (this.config.exclude.includes(tool.name)) continue;
      if (this.config.include.length && !this.config.include.includes(tool.name)) continue;
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(short)) continue;
      const schema = toolSchema(tool);
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
      type: 'mcp_client',
      description,
      parameters,
      input: { kind: 'schema', dto: ScriptedInput },
      fromChat: (request) => ({ input_message: lastUserText(request.messages) }),
      run: async (args, ctx) => {
        if (typeof schema === 'string')
          throw new McpToolError(`MCPToolClient tool call failed: ${original}: ${schema}`);
        // The model's arguments are untrusted: they must fit the server's schema before they are sent.
        const checked = checkedArguments<Record<string, unknown>>(schema, args ?? {});
        let result: CallResult;
        try {
          result = await this.connection.callTool(original, checked, ctx.signal);
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
  build: (config, context) => new McpGroup(config, context.name, context),
};
