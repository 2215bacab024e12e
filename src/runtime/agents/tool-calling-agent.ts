import type { ModelMessage } from '../llm/llm-client';
import { callModel } from '../llm/llm-call';
import { AgentConfig } from './agent.config';
import { AgentIterationLimit, agentType, systemPrompt, type AgentRun } from './agent-function';
import { modelMessage } from './agent-input';
import { ClientTools } from './client-tools';
import { quoted } from './model-text';

export class ToolCallingAgentConfig extends AgentConfig {}

/**
 * The OpenAI function-calling loop: the model answers or calls tools (several at once if it likes), the
 * tools' answers go back to it, until it answers without calling any. On streaming routes the answer's
 * text streams as it is written.
 */
async function toolCallingLoop(run: AgentRun<ToolCallingAgentConfig>): Promise<string> {
  const { config, llm, tools, ctx } = run;
  const system = systemPrompt(config);
  const messages: ModelMessage[] = [
    ...(system ? [{ role: 'system' as const, content: system }] : []),
    ...run.conversation.map(modelMessage),
  ];
  // A face's client tools (OpenAI Responses' `tools`): the model may call them; the client runs them.
  const client = ClientTools.of(ctx, tools.names());
  const specs = [...tools.specs(), ...client.specs()];
  const offered = new Set(specs.flatMap((s) => (s.type === 'function' ? [s.function.name] : [])));
  for (let n = 0; n < config.max_iterations; n++) {
    const response = await callModel(ctx, llm, {
      messages,
      tools: specs,
      onText: (delta, inToolCall) => {
        if (!inToolCall) ctx.emit(delta);
      },
    });
    if (!response.toolCalls.length) return response.content;
    messages.push({ role: 'assistant', content: response.content || null, tool_calls: response.toolCalls });
    const calls = response.toolCalls.map((c) => ({
      // A name the model made up is told back to it ("no tool named …") only in part, however long.
      name: offered.has(c.function.name) ? c.function.name : quoted(c.function.name),
      arguments: c.function.arguments,
    }));
    const answers = await client.callAll(calls, ctx, (own) => tools.callAll(own, ctx));
    response.toolCalls.forEach((c, i) =>
      messages.push({ role: 'tool', tool_call_id: c.id, content: answers[i] }),
    );
  }
  throw new AgentIterationLimit(run);
}

/** `tool_calling_agent` (NeMo Agent Toolkit's name). */
export const toolCallingAgent = agentType({
  type: 'tool_calling_agent',
  description: 'Tool Calling Agent Workflow',
  config: ToolCallingAgentConfig,
  natFields: {
    ignored: {
      truncation_retry: 'a truncated answer is returned as it is',
      max_empty_response_retries: 'an empty answer is returned as it is',
      return_direct: "every tool's answer goes back to the model",
      // NAT's examples set it on this agent too, where NAT drops it unread.
      parse_agent_response_max_retries: 'a ReAct agent field; the tool calling agent reads no text format',
    },
  },
  readsAttachments: true,
  loop: toolCallingLoop,
});
