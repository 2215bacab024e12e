import type { ChatUsage } from '../chat-completion';
import { withoutAttachmentData } from '../attachments';
import type { UsageInfo } from '../intermediate-step';
import type { WorkflowContext } from '../workflow-context';
import type { LlmClient, LlmResponse, ModelMessage, ModelTool } from './llm-client';

/** Tokens used by every model call of one execution (nested agents included). */
const spent = new WeakMap<WorkflowContext, ChatUsage>();

/** What the execution's model calls reported so far; undefined when none reported usage. */
export function usageSoFar(ctx: WorkflowContext): ChatUsage | undefined {
  return spent.get(ctx);
}

/** Adds a model call's usage to what the execution spent (usageSoFar). */
export function addUsage(ctx: WorkflowContext, usage: ChatUsage): void {
  const total = spent.get(ctx) ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  spent.set(ctx, {
    prompt_tokens: total.prompt_tokens + usage.prompt_tokens,
    completion_tokens: total.completion_tokens + usage.completion_tokens,
    total_tokens: total.total_tokens + usage.total_tokens,
  });
}

function usageInfo(usage: ChatUsage): UsageInfo {
  return { token_usage: usage, num_llm_calls: 1, seconds_between_calls: 0 };
}

/** What LLM_END shows: the answer text, or the text and tool calls when the model called tools. */
function endOutput(response: LlmResponse): unknown {
  if (!response.toolCalls.length) return response.content;
  const calls = response.toolCalls.map((c) => ({ name: c.function.name, arguments: c.function.arguments }));
  return { content: response.content || null, tool_calls: calls };
}

export interface ModelCall {
  messages: ModelMessage[];
  tools?: ModelTool[];
  stop?: string[];
  /** Each piece of answer text as it streams (only on streaming routes). */
  onText?(delta: string, inToolCall: boolean): void;
}

/**
 * Calls the model inside an LLM_START / LLM_END pair (named after the model, as NAT does): streaming
 * routes get an LLM_NEW_TOKEN per piece of text, and LLM_END carries the call's token usage.
 */
export function callModel(ctx: WorkflowContext, llm: LlmClient, call: ModelCall): Promise<LlmResponse> {
  return ctx.step(
    llm.model,
    'llm',
    async () => {
      // Journaled: a replay gets this answer back without asking the model again (nor streaming it).
      const response = await ctx.journaled('llm', () =>
        llm.complete({
          messages: call.messages,
          tools: call.tools,
          stop: call.stop,
          stream: ctx.streaming,
          signal: ctx.signal,
          onText: (delta, inToolCall) => {
            ctx.event('LLM_NEW_TOKEN', llm.model, { chunk: delta });
            call.onText?.(delta, inToolCall);
          },
        }),
      );
      if (response.usage) addUsage(ctx, response.usage);
      return response;
    },
    {
      input: withoutAttachmentData(call.messages),
      end: (response) => ({
        output: endOutput(response),
        usage: response.usage ? usageInfo(response.usage) : undefined,
      }),
    },
  );
}
