import { Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { ServerConfig } from '../config/server-config';
import type { ValidationIssue } from '../core/errors/app-error';
import { validatePlain } from '../core/validation/validation-issues';
import { GROUP_SEPARATOR, type BuiltFunction } from '../runtime/function-type';
import { CHAT_QUERY_SCHEMA, inputSchemaOf, type ObjectSchema } from './input-schema';

/** One tool this face serves: a configured function, or the workflow itself. */
export interface McpTool {
  name: string;
  fn: BuiltFunction;
  /** The configured workflow (run as the HTTP routes run it, durable on a shared store). */
  workflow: boolean;
  inputSchema: ObjectSchema;
}

/**
 * The tools of `nat mcp serve`: every function of `functions:`, every tool of each function group
 * (`<group>__<tool>`), and the workflow under its `_type`; `general.front_end.mcp.tool_names` keeps
 * those it names (a group's name keeps all of the group's tools).
 */
@Injectable()
export class McpTools {
  /** Each function's input schema, read once (from its class-validator rules): a call looks tools up. */
  private readonly schemas = new WeakMap<BuiltFunction, ObjectSchema>();

  constructor(private readonly config: ServerConfig) {}

  private schemaOf(fn: BuiltFunction): ObjectSchema {
    let schema = this.schemas.get(fn);
    if (!schema) this.schemas.set(fn, (schema = inputSchemaOf(fn)));
    return schema;
  }

  list(): McpTool[] {
    const { app } = this.config;
    const tools = new Map<string, McpTool>();
    const add = (name: string, fn: BuiltFunction, workflow = false) =>
      tools.set(name, { name, fn, workflow, inputSchema: this.schemaOf(fn) });
    for (const [name, fn] of app.functions) add(name, fn);
    for (const group of app.groups.values()) {
      // A group that could not connect has no tools to offer (start-up reported why).
      let functions: Map<string, BuiltFunction>;
      try {
        functions = group.functions();
      } catch {
        continue;
      }
      for (const [name, fn] of functions) add(name, fn);
    }
    add(app.workflow.type, app.workflow, true);
    const names = this.config.frontEnd.mcp.tool_names;
    if (!names) return [...tools.values()];
    return [...tools.values()].filter(
      (tool) =>
        names.includes(tool.name) || names.some((n) => tool.name.startsWith(`${n}${GROUP_SEPARATOR}`)),
    );
  }

  find(name: string): McpTool | undefined {
    return this.list().find((tool) => tool.name === name);
  }

  /** The tool as `tools/list` shows it. */
  static describe(tool: McpTool): Tool {
    return { name: tool.name, description: tool.fn.description, inputSchema: tool.inputSchema };
  }

  /** The function's input for a call's arguments, or what is wrong with them. */
  static inputOf(
    tool: McpTool,
    args: Record<string, unknown>,
  ): { ok: true; input: unknown } | { ok: false; issues: ValidationIssue[] } {
    const { fn } = tool;
    if (fn.parameters) return { ok: true, input: args };
    if (tool.inputSchema === CHAT_QUERY_SCHEMA) {
      if (typeof args.query !== 'string') {
        return {
          ok: false,
          issues: [{ type: 'missing', loc: ['query'], msg: 'Field required', input: args }],
        };
      }
      return { ok: true, input: fn.fromChat({ messages: [{ role: 'user', content: args.query }] }) };
    }
    if (fn.input.kind !== 'schema') return { ok: true, input: args };
    const checked = validatePlain(fn.input.dto, args);
    return checked.ok ? { ok: true, input: args } : checked;
  }
}
