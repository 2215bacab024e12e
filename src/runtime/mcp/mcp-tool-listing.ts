import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MCP_LIMITS } from './mcp-tool-shapes';

/** A tool as the server lists it: its name, and the rest unchecked (mcp-tool-shapes bounds it). */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: unknown;
}

/** Pages of `tools/list` read before giving up on a server that keeps answering with a cursor. */
const MAX_PAGES = 20;

/**
 * Reads a server's tools, at most `MCP_LIMITS.tools` of them (no more are offered) and
 * `MCP_LIMITS.listingBytes` of JSON in all, over at most 20 pages.
 *
 * Not through the SDK's `listTools`: it parses every tool with its strict schema (one odd tool failed
 * the whole listing), and compiles each tool's `outputSchema` with ajv on every listing (kept for the
 * client's life: memory and event-loop time a server decides). We read `tools/list` as a plain result;
 * each tool's input schema is checked on its own (`toolSchema`), and output schemas are never read.
 */
export async function listServerTools(
  request: (cursor: string | undefined) => Promise<unknown>,
): Promise<ListedTool[]> {
  const tools: ListedTool[] = [];
  let bytes = 0;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES && tools.length < MCP_LIMITS.tools; page++) {
    const answer = (await request(cursor)) as { tools?: unknown; nextCursor?: unknown } | null;
    if (!answer || !Array.isArray(answer.tools)) throw new Error('its tools/list answer has no tools array');
    for (const raw of answer.tools.slice(0, MCP_LIMITS.tools - tools.length)) {
      const tool = raw as Partial<Record<keyof ListedTool, unknown>> | null;
      // A tool without a name cannot be offered nor refused by name: it is left out.
      if (!tool || typeof tool.name !== 'string') continue;
      bytes += jsonSize(tool) ?? tool.name.length;
      if (bytes > MCP_LIMITS.listingBytes)
        throw new Error(`its tool list is over ${MCP_LIMITS.listingBytes} bytes`);
      tools.push({
        name: tool.name,
        description: typeof tool.description === 'string' ? tool.description : undefined,
        inputSchema: tool.inputSchema,
      });
    }
    cursor = typeof answer.nextCursor === 'string' ? answer.nextCursor : undefined;
    if (!cursor) break;
  }
  return tools;
}

/** A listing page through the SDK's client, as a plain result (see `listServerTools`). */
export async function listPage(
  client: Client,
  cursor: string | undefined,
  timeout: number,
): Promise<unknown> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { ResultSchema } =
    require('@modelcontextprotocol/sdk/types.js') as typeof import('@modelcontextprotocol/sdk/types.js');
  /* eslint-enable @typescript-eslint/no-require-imports */
  return client.request({ method: 'tools/list', params: cursor ? { cursor } : {} }, ResultSchema, {
    timeout,
  });
}

/** The length of `value` as JSON, or undefined for one nested too deeply to write out. */
export function jsonSize(value: unknown): number | undefined {
  try {
    return JSON.stringify(value)?.length ?? 0;
  } catch {
    return undefined;
  }
}
