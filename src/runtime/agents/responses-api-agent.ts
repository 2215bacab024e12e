import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Min,
  ValidateNested,
} from 'class-validator';
import type {
  Response,
  ResponseInputItem,
  ResponseFunctionToolCall,
  Tool,
} from 'openai/resources/responses/responses';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { lastUserText } from '../chat-input';
import type { FunctionType } from '../function-type';
import { addUsage } from '../llm/llm-call';
import type { LlmClient } from '../llm/llm-client';
import { FUNCTION_BASE_FIELDS } from '../nat-fields';
import type { WorkflowContext } from '../workflow-context';
import { failureAnswer } from './agent-failure';
import { chatFunction, resolveTools } from './agent-function';
import { agentResult, conversationOf } from './agent-input';
import { AgentTools } from './agent-tools';

/** A remote MCP server the model's provider calls itself (NAT's OpenAIMCPSchemaTool). */
export class ResponsesMcpTool {
  @IfPresent() @IsIn(['mcp']) type = 'mcp';
  @IsDefined() @IsString() server_label!: string;
  @IsDefined()
  @IsString()
  @Matches(/^https?:\/\/\S+$/, { message: 'server_url must be an http(s) URL' })
  server_url!: string;
  @IfPresent() @IsArray() @IsString({ each: true }) allowed_tools?: string[];
  @IfPresent() @IsIn(['never', 'always', 'auto']) require_approval = 'never';
  @IfPresent() @IsObject() headers?: Record<string, string>;
}

/**
 * `_type: responses_api_agent` (NAT's, package nvidia-nat-langchain): a tool calling loop over the
 * OpenAI Responses API. `nat_tools` run here; `builtin_tools` (code_interpreter, web_search, …) and
 * `mcp_tools` are run by the model's provider.
 */
export class ResponsesApiAgentConfig {
  @IsString() _type!: string;
  @IsDefined() @IsString() llm_name!: string;
  @IfPresent() @IsArray() @IsString({ each: true }) nat_tools: string[] = [];
  @IfPresent()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ResponsesMcpTool)
  mcp_tools: ResponsesMcpTool[] = [];
  /** Sent as the Responses API takes them (`{type: code_interpreter, container: {type: auto}}`). */
  @IfPresent() @IsArray() @IsObject({ each: true }) builtin_tools: Record<string, unknown>[] = [];
  /** Rounds of tool calls before the agent gives up. */
  @IfPresent() @IsInt() @Min(1) max_iterations = 15;
  @IfPresent() @IsString() description = 'Agent Workflow';
  @IfPresent() @IsBoolean() parallel_tool_calls = false;
  /** A tool's error goes back to the model as its answer instead of ending the run. */
  @IfPresent() @IsBoolean() handle_tool_errors = true;
  /** A failure answers with its message instead of NAT's "I seem to be having a problem." */
  @IfPresent() @IsBoolean() verbose = false;
}

/** The model's last text: the last output_text part of its last message (NAT's answer). */
function answerOf(response: Response): string {
  const message = response.output.filter((item) => item.type === 'message').at(-1);
  const texts = message?.content.filter((part) => part.type === 'output_text') ?? [];
  return texts.at(-1)?.text ?? '';
}

/** One call to the Responses API inside an LLM step, as callModel does for chat completions. */
function callResponses(
  ctx: WorkflowContext,
  llm: LlmClient,
  input: ResponseInputItem[],
  tools: Tool[],
  parallel: boolean,
): Promise<Response> {
  return ctx.step(
    llm.model,
    'llm',
    async () => {
      // Journaled: a replay gets this answer back without asking the model again.
      const response = await ctx.journaled('llm', () =>
        llm.respond({ input, ...(tools.length ? { tools, parallel_tool_calls: parallel } : {}) }, ctx.signal),
      );
      const usage = response.usage;
      if (usage) {
        const { input_tokens, output_tokens, total_tokens } = usage;
        addUsage(ctx, { prompt_tokens: input_tokens, completion_tokens: output_tokens, total_tokens });
      }
      return response;
    },
    {
      input,
      end: (response) => {
        const calls = response.output.filter((i) => i.type === 'function_call');
        const output = calls.length
          ? { tool_calls: calls.map((c) => ({ name: c.name, arguments: c.arguments })) }
          : answerOf(response);
        return { output };
      },
    },
  );
}

async function respondLoop(
  config: ResponsesApiAgentConfig,
  llm: LlmClient,
  tools: AgentTools,
  request: string,
  ctx: WorkflowContext,
): Promise<string> {
  const specs: Tool[] = [
    ...tools.names().map((name) => {
      const { description, parameters } = tools.get(name)!;
      // Not strict: the provider would refuse a schema strict mode cannot take (an optional field).
      return { type: 'function' as const, name, description, parameters, strict: false };
    }),
    ...config.mcp_tools.map((t) => ({ ...t }) as Tool),
    ...(config.builtin_tools as unknown as Tool[]),
  ];
  const input: ResponseInputItem[] = [{ role: 'user', content: request }];
  for (let round = 0; ; round++) {
    const response = await callResponses(ctx, llm, input, specs, config.parallel_tool_calls);
    const calls = response.output.filter((i): i is ResponseFunctionToolCall => i.type === 'function_call');
    if (!calls.length) return answerOf(response);
    if (round === config.max_iterations) {
      throw new Error(`the model called tools ${round + 1} times in a row (max_iterations ${round})`);
    }
    // The model's output items (reasoning, provider-run tools, its calls) go back with the answers.
    input.push(...(response.output as ResponseInputItem[]));
    const answers = await tools.callAll(
      calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      ctx,
    );
    calls.forEach((c, i) =>
      input.push({ type: 'function_call_output', call_id: c.call_id, output: answers[i] }),
    );
  }
}

export const responsesApiAgent: FunctionType<ResponsesApiAgentConfig> = {
  type: 'responses_api_agent',
  description: 'Agent Workflow',
  config: ResponsesApiAgentConfig,
  natFields: { ignored: FUNCTION_BASE_FIELDS },
  references: (config) => [
    { loc: ['llm_name'], section: 'llms', name: config.llm_name },
    ...config.nat_tools.map((name, i) => ({ loc: ['nat_tools', i], section: 'functions' as const, name })),
  ],
  build(config, context) {
    const llm = context.llm(config.llm_name);
    if (llm.apiType !== 'responses') {
      throw new Error(
        `responses_api_agent needs an LLM that calls the Responses API: set api_type: responses on llms.${config.llm_name}`,
      );
    }
    let tools: AgentTools | undefined;
    const toolsOf = async (asker?: WorkflowContext) =>
      (tools ??= new AgentTools(
        await resolveTools(config.nat_tools, context, asker),
        config.handle_tool_errors,
      ));
    return chatFunction({
      type: 'responses_api_agent',
      name: context.name,
      description: config.description,
      model: llm.model,
      tools: async (asker) => {
        const all = await toolsOf(asker);
        return all.names().map((name) => ({ name, description: all.get(name)!.description }));
      },
      run: async (input, ctx) => {
        let answer: string;
        try {
          answer = await respondLoop(
            config,
            llm,
            await toolsOf(ctx),
            lastUserText(conversationOf(input)),
            ctx,
          );
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          // NAT answers with the failure instead of raising it; its detail goes to the log either way.
          const failure = failureAnswer(err, context.name, ctx);
          answer = config.verbose ? failure : 'I seem to be having a problem.';
        }
        return agentResult(answer, input, ctx, llm.model);
      },
    });
  },
};
