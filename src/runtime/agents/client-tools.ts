import type { ModelTool } from '../llm/llm-client';
import { PromptTimeoutError } from '../prompts';
import type { WorkflowContext } from '../workflow-context';
import type { ToolCall } from './agent-tools';
import { isJsonObject } from '../../core/validation/json-object';

/**
 * The key of `ctx.request.extras` under which a face hands an agent its client's function tools
 * (`[{name, description, parameters}]`): tools the client runs itself (OpenAI Responses' `tools`).
 */
export const CLIENT_TOOLS = 'client_tools';

/**
 * The metadata key of the TOOL step in which an agent waits for a client's tool; its value is the
 * call's arguments as JSON text. A face renders the prompt asked inside that step as the client's
 * function call (name, arguments), and hands the client's result back as the prompt's text answer.
 */
export const CLIENT_TOOL_STEP = 'client_tool_arguments';

interface ClientTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** The client's tools of this run, less any that a tool of the agent's config already names. */
export class ClientTools {
  private readonly tools: Map<string, ClientTool>;

  private constructor(tools: ClientTool[]) {
    this.tools = new Map(tools.map((t) => [t.name, t]));
  }

  static of(ctx: WorkflowContext, taken: readonly string[]): ClientTools {
    const raw = ctx.request.extras?.[CLIENT_TOOLS];
    const tools = (Array.isArray(raw) ? raw : []).flatMap((t): ClientTool[] =>
      isJsonObject(t) && typeof t.name === 'string' && !taken.includes(t.name)
        ? [
            {
              name: t.name,
              description: typeof t.description === 'string' ? t.description : '',
              parameters: isJsonObject(t.parameters) ? t.parameters : { type: 'object', properties: {} },
            },
          ]
        : [],
    );
    return new ClientTools(tools);
  }

  specs(): ModelTool[] {
    return [...this.tools.values()].map((t) => ({
      type: 'function',
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }

  /**
   * One turn's calls: the agent's own through `callOwn` (as it would), then the client's one after the
   * other (each ends the face's response with its function call); the answers in the order of the calls.
   */
  async callAll(
    calls: ToolCall[],
    ctx: WorkflowContext,
    callOwn: (calls: ToolCall[]) => Promise<string[]>,
  ): Promise<string[]> {
    const own = calls.filter((c) => !this.tools.has(c.name));
    const ownAnswers = await callOwn(own);
    const answers: string[] = [];
    for (const c of calls) {
      answers.push(this.tools.has(c.name) ? await this.call(c, ctx) : ownAnswers[own.indexOf(c)]);
    }
    return answers;
  }

  /**
   * Waits for the client's result. Arguments that are not a JSON object never reach the client (it
   * could not parse them): the model reads why and may call again.
   */
  private async call(call: ToolCall, ctx: WorkflowContext): Promise<string> {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments.trim() === '' ? '{}' : call.arguments);
    } catch {
      args = undefined;
    }
    if (!isJsonObject(args)) {
      return `Error: the arguments of ${call.name} are not a JSON object: ${call.arguments}. Call it again with a JSON object.`;
    }
    const text = JSON.stringify(args);
    const ask = async (): Promise<string> => {
      // Journaled: a replay after a takeover waits on the same interaction.
      const interactionId = await ctx.uuid();
      try {
        const answer = await ctx.prompt(
          {
            input_type: 'text',
            text: `The result of ${call.name}(${text})`,
            required: false,
            allow_cancel: true,
          },
          { interactionId },
        );
        return answer.type === 'text' ? answer.text : `Error: the client did not run ${call.name}.`;
      } catch (err) {
        if (err instanceof PromptTimeoutError)
          return `Error: the client did not answer ${call.name} in time.`;
        throw err;
      }
    };
    return ctx.step(call.name, 'tool', ask, { input: args, metadata: { [CLIENT_TOOL_STEP]: text } });
  }
}
