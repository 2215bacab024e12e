import { AppError } from '../../core/errors/app-error';
import { isChatCompletion, resultText } from '../chat-completion';
import type { BuiltFunction } from '../function-type';
import { LlmError } from '../llm/llm-error';
import type { ModelTool } from '../llm/llm-client';
import { argumentsFromText, checkedArguments, parseArguments, type JsonSchema } from '../tools/json-schema';
import type { WorkflowContext } from '../workflow-context';
import { redactUrlsIn } from '../../core/outbound/redact-url';

/** How a function that declares no parameters is called: with one message, as a one-message chat. */
const MESSAGE_PARAMETERS: JsonSchema = {
  type: 'object',
  properties: { input_message: { type: 'string', description: 'The message for this tool' } },
  required: ['input_message'],
};

/** A tool call as an agent parsed it from the model's answer. */
export interface ToolCall {
  name: string;
  /** JSON text, or with `loose` any text `argumentsFromText` reads (a ReAct `Action Input:`). */
  arguments: string;
  loose?: boolean;
}

interface AgentTool {
  name: string;
  fn: BuiltFunction;
  parameters: JsonSchema;
}

/** A tool's answer as the model reads it: text as it is, anything else as JSON. */
function answerText(result: unknown): string {
  if (typeof result === 'string') return result;
  return isChatCompletion(result) ? resultText(result) : JSON.stringify(result ?? null);
}

function toolOf(name: string, fn: BuiltFunction): AgentTool {
  return { name, fn, parameters: fn.parameters ?? MESSAGE_PARAMETERS };
}

/**
 * An approval that names its tool and carries replacement arguments (`ask_confirmation` answered with
 * `edited_args`): the tool and the arguments it must run with.
 */
function approvedEdit(
  args: unknown,
  result: unknown,
): { tool: string; args: Record<string, unknown> } | null {
  const r = result as { confirmed?: unknown; edited_args?: unknown } | null;
  const tool = (args as { target_tool?: unknown } | null)?.target_tool;
  if (r?.confirmed !== true || typeof tool !== 'string') return null;
  const edited = r.edited_args;
  return edited && typeof edited === 'object' ? { tool, args: edited as Record<string, unknown> } : null;
}

/** Failures that end the run rather than go back to the model: cancels, refusals, a broken model. */
function endsRun(err: unknown, ctx: WorkflowContext): boolean {
  return ctx.signal.aborted || err instanceof AppError || err instanceof LlmError;
}

/** The functions an agent may call, by the names its config lists. */
export class AgentTools {
  private readonly tools: Map<string, AgentTool>;
  /** Per run: arguments a person approved for a tool's next call, which replace the model's. */
  private readonly approved = new WeakMap<WorkflowContext, Map<string, Record<string, unknown>>>();

  constructor(
    functions: [string, BuiltFunction][],
    /** Tool errors go back to the model as the tool's answer instead of failing the run. */
    private readonly handleErrors: boolean,
  ) {
    this.tools = new Map(functions.map(([name, fn]) => [name, toolOf(name, fn)]));
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  get(name: string): { description: string; parameters: JsonSchema } | undefined {
    const tool = this.tools.get(name);
    return tool && { description: tool.fn.description, parameters: tool.parameters };
  }

  /** The tools as OpenAI function tools. */
  specs(): ModelTool[] {
    return [...this.tools.values()].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.fn.description, parameters: t.parameters },
    }));
  }

  /**
   * Runs one turn's calls, in parallel, each answer in the order of the calls. A turn that asks a person
   * runs its questions one after the other and none of its other calls: the model decided those before
   * hearing the answer, so it must call them again once it has.
   */
  async callAll(calls: ToolCall[], ctx: WorkflowContext): Promise<string[]> {
    const asking = calls.find((c) => this.tools.get(c.name)?.fn.asksPerson);
    if (!asking) return Promise.all(calls.map((c) => this.call(c, ctx)));
    const answers: string[] = [];
    for (const c of calls) {
      answers.push(
        this.tools.get(c.name)?.fn.asksPerson
          ? await this.call(c, ctx)
          : `Not run: ${c.name} was called in the same turn as ${asking.name}. Call it again once you have the answer.`,
      );
    }
    return answers;
  }

  /** Runs one call inside a TOOL_START / TOOL_END pair; the answer the model reads, as text. */
  async call(call: ToolCall, ctx: WorkflowContext): Promise<string> {
    const tool = this.tools.get(call.name);
    if (!tool) {
      return `Error: there is no tool named "${call.name}". Available tools: ${this.names().join(', ') || 'none'}.`;
    }
    try {
      const pinned = this.approved.get(ctx)?.get(call.name);
      if (pinned) this.approved.get(ctx)!.delete(call.name);
      const args =
        pinned ??
        (call.loose ? argumentsFromText(call.arguments, tool.parameters) : parseArguments(call.arguments));
      const result = await ctx.step(call.name, 'tool', () => this.run(tool, args, ctx), { input: args });
      if (tool.fn.asksPerson) this.remember(approvedEdit(args, result), ctx);
      return answerText(result);
    } catch (err) {
      if (!this.handleErrors || endsRun(err, ctx)) throw err;
      // Any tool's error (a custom one too) may quote a URL with a key in it: the model never reads that.
      return `Error: ${redactUrlsIn((err as Error).message ?? String(err))}`;
    }
  }

  /** Keeps an approval's edited arguments for the next call of the tool it approved, in this run. */
  private remember(edit: { tool: string; args: Record<string, unknown> } | null, ctx: WorkflowContext): void {
    if (!edit || !this.tools.has(edit.tool)) return;
    const pins = this.approved.get(ctx) ?? new Map<string, Record<string, unknown>>();
    pins.set(edit.tool, edit.args);
    this.approved.set(ctx, pins);
  }

  private run(tool: AgentTool, args: unknown, ctx: WorkflowContext): Promise<unknown> {
    if (tool.fn.parameters) return tool.fn.run(args, ctx);
    const { input_message } = checkedArguments<{ input_message: string }>(tool.parameters, args);
    return tool.fn.run(tool.fn.fromChat({ messages: [{ role: 'user', content: input_message }] }), ctx);
  }
}
