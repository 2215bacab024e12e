import { IsInt, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ModelMessage } from '../llm/llm-client';
import { callModel } from '../llm/llm-call';
import { AgentConfig } from './agent.config';
import { AgentIterationLimit, agentType, systemPrompt, type AgentRun } from './agent-function';
import { quoted } from './model-text';
import {
  FinalAnswerStream,
  parseReAct,
  REACT_SYSTEM_PROMPT,
  reactInstructions,
  reactMessage,
} from './react-format';

export class ReActAgentConfig extends AgentConfig {
  /** Replies in a row the model may get wrong (told what is wrong each time) before the run fails. */
  @IfPresent() @Min(0) @IsInt() max_retries = 1;
}

/** The model kept answering in a form the ReAct loop cannot read. */
export class ReActParseError extends Error {
  /** Quotes the model's reply and the agent's settings (see isExposed). */
  readonly expose = true;

  constructor(run: AgentRun<ReActAgentConfig>, problem: string, reply: string) {
    const shown = reply.length > 200 ? `${reply.slice(0, 200)}…` : reply;
    const retries = run.config.max_retries;
    super(
      `Agent "${run.name}" could not read the reply of model "${run.llm.model}" after ` +
        `${retries} ${retries === 1 ? 'retry' : 'retries'} (max_retries): ${problem}. The reply: ${shown}`,
    );
    this.name = 'ReActParseError';
  }
}

/**
 * The text ReAct loop: Thought / Action / Action Input, an Observation with the tool's result, again,
 * until a Final Answer (which streams as it is written on streaming routes).
 */
async function reactLoop(run: AgentRun<ReActAgentConfig>): Promise<string> {
  const { config, llm, tools, ctx } = run;
  const instructions = reactInstructions(systemPrompt(config, REACT_SYSTEM_PROMPT)!, tools);
  const messages: ModelMessage[] = [
    { role: 'system', content: instructions },
    ...run.conversation.map(reactMessage),
  ];
  let misread = 0;
  for (let n = 0; n < config.max_iterations; n++) {
    const answer = new FinalAnswerStream((text) => ctx.emit(text));
    const { content } = await callModel(ctx, llm, {
      messages,
      stop: ['Observation:'],
      onText: (delta) => answer.push(delta),
    });
    const step = parseReAct(content);
    if (step.kind === 'final') return step.answer;
    messages.push({ role: 'assistant', content });
    if (step.kind === 'invalid') {
      if (++misread > config.max_retries) throw new ReActParseError(run, step.problem, content);
      messages.push({
        role: 'user',
        content: `Observation: Invalid format: ${step.problem}. Reply with "Action:" and "Action Input:" lines, or with a "Final Answer:" line.`,
      });
      continue;
    }
    misread = 0;
    // A name the model made up is told back to it ("no tool named …") only in part, however long.
    const name = tools.names().includes(step.tool) ? step.tool : quoted(step.tool);
    const observation = await tools.call({ name, arguments: step.input, loose: true }, ctx);
    messages.push({ role: 'user', content: `Observation: ${observation}` });
  }
  throw new AgentIterationLimit(run);
}

/** `react_agent` (NeMo Agent Toolkit's name). */
export const reactAgent = agentType({
  type: 'react_agent',
  description: 'ReAct Agent Workflow',
  config: ReActAgentConfig,
  natFields: {
    renamed: {
      parse_agent_response_max_retries: 'max_retries',
      max_tool_calls: 'max_iterations',
      pass_tool_call_errors_to_agent: 'handle_tool_errors',
    },
    switches: {
      retry_agent_response_parsing_errors: { whenFalse: { max_retries: 0 } },
      retry_parsing_errors: { whenFalse: { max_retries: 0 } },
    },
    ignored: {
      tool_call_max_retries: 'a failing tool call is not retried; its error goes to the model',
      raise_on_parsing_failure: 'a reply still unreadable after max_retries fails the run',
      include_tool_input_schema_in_tool_description: "the tools' argument schemas are always in the prompt",
      normalize_tool_input_quotes: 'Action Input is read as JSON, else passed as text',
      use_native_tool_calling:
        'the ReAct agent reads the text format; use tool_calling_agent for native tool calls',
      handle_parsing_errors: 'an older NAT field; unreadable replies are retried as max_retries says',
    },
  },
  check: (config) =>
    config.system_prompt !== undefined && !config.system_prompt.includes('{tools}')
      ? [
          {
            loc: ['system_prompt'],
            message: 'a ReAct system_prompt must contain {tools} (and may use {tool_names})',
          },
        ]
      : [],
  loop: reactLoop,
});

/** NAT's `per_user_react_agent`: the ReAct agent with an instance per user (for per-user tools). */
export const perUserReactAgent: typeof reactAgent = {
  ...reactAgent,
  type: 'per_user_react_agent',
  perUser: true,
};
