import { schemaProblem, type JsonSchema } from '../tools/json-schema';
import type { CallResult } from './mcp-connection';
import { jsonSize, type ListedTool } from './mcp-tool-listing';

// What an MCP server (untrusted) says of its tools, as Interlude hands it on: bounded descriptions,
// schemas the argument check can compile, results as NAT reads them.

/** Bounds on what an MCP server (untrusted) may put in front of the model. */
export const MCP_LIMITS = {
  description: 2000,
  schemaBytes: 32 * 1024,
  result: 64 * 1024,
  /** Tools read from a listing (the rest are not offered) and the JSON they may take in all. */
  tools: 256,
  listingBytes: 16 * 1024 * 1024,
};

/** `text`, cut to `max` characters with a note of how much was cut. */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters cut]`;
}

/** NAT joins a result's text parts with newlines and ignores the rest; `isError` becomes its failure text. */
export function resultText(result: CallResult): string {
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
export function toolSchema(tool: ListedTool): JsonSchema | string {
  const input = tool.inputSchema ?? { type: 'object' };
  // MCP: a tool's inputSchema is a JSON Schema object of type "object".
  if (typeof input !== 'object' || Array.isArray(input) || (input as JsonSchema).type !== 'object')
    return 'its input schema is not a JSON schema of type object';
  const { $schema: _ignored, ...schema } = input as JsonSchema;
  const size = jsonSize(schema);
  if (size === undefined) return 'its input schema is nested too deeply';
  if (size > MCP_LIMITS.schemaBytes) return `its input schema is over ${MCP_LIMITS.schemaBytes} bytes`;
  const problem = schemaProblem(schema);
  return problem ? `its input schema does not compile: ${problem}` : schema;
}

/**
 * The name each offered tool goes by (its alias, else its own name), and why any other is left out: a
 * configured alias has the first claim on its name, then the server's own names in the order it lists
 * them. A server may list two tools with one name, or one named like another's alias; without this the
 * later one silently replaced the earlier, so which tool the model reached depended on list order.
 */
export function claimedNames(
  tools: readonly ListedTool[],
  aliases: Readonly<Record<string, { alias?: string } | undefined>>,
): { names: Map<ListedTool, string>; leftOut: string[] } {
  const holders = new Map<string, ListedTool>();
  const aliased = tools.filter((t) => aliases[t.name]?.alias);
  const plain = tools.filter((t) => !aliases[t.name]?.alias);
  const leftOut: string[] = [];
  for (const tool of [...aliased, ...plain]) {
    const name = aliases[tool.name]?.alias ?? tool.name;
    const holder = holders.get(name);
    if (holder === undefined) holders.set(name, tool);
    else {
      const by = holder.name === name ? 'another tool it lists' : `tool ${holder.name}'s alias`;
      leftOut.push(`tool ${tool.name} is left out: "${name}" is already the name of ${by}`);
    }
  }
  const names = new Map<ListedTool, string>();
  for (const tool of tools) {
    const name = aliases[tool.name]?.alias ?? tool.name;
    if (holders.get(name) === tool) names.set(tool, name);
  }
  return { names, leftOut };
}
