import { IsArray, IsBoolean, IsDefined, IsInt, IsString, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { messageText, type ChatMessage } from '../chat-input';
import type { BuiltFunction, FunctionType } from '../function-type';
import { callModel } from '../llm/llm-call';
import type { LlmClient } from '../llm/llm-client';
import { AGENT_FIELDS } from '../nat-fields';
import type { WorkflowContext } from '../workflow-context';
import { chatFunction, resolveTools } from './agent-function';
import { agentResult, conversationOf } from './agent-input';
import { fillTemplate } from './python-format';
import { PLANNER_SYSTEM_PROMPT, PLANNER_USER_PROMPT, SOLVER_SYSTEM_PROMPT } from './rewoo-prompts';
import { Evidence } from './rewoo-evidence';
import { parsePlan, planLevels } from './rewoo-plan';
import { runStep, solverMessages, type PlanRun } from './rewoo-run';

const NO_INPUT = 'No human input received to the agent, Please ask a valid question.';

/**
 * `_type: rewoo_agent` (NAT's, package nvidia-nat-langchain): the LLM plans every tool call up front as
 * JSON steps whose inputs may name earlier steps' evidence (`#E1`); the steps run (those that do not
 * depend on each other at once), and the LLM then answers from the plan and its evidence.
 */
export class ReWOOAgentConfig {
  @IsString() _type!: string;
  @IsDefined() @IsString() llm_name!: string;
  @IfPresent() @IsArray() @IsString({ each: true }) tool_names: string[] = [];
  @IfPresent() @IsString() description = 'ReWOO Agent Workflow';
  @IfPresent() @IsBoolean() include_tool_input_schema_in_tool_description = true;
  @IfPresent() @IsString() planner_prompt?: string;
  @IfPresent() @IsString() solver_prompt?: string;
  /** Attempts per tool call (2, 4, … seconds apart) before its evidence is the failure. */
  @IfPresent() @IsInt() @Min(1) tool_call_max_retries = 3;
  /** Messages of the conversation the planner sees (the system message kept, starting at a user's). */
  @IfPresent() @IsInt() @Min(1) max_history = 15;
  @IfPresent() @IsString() additional_planner_instructions?: string;
  @IfPresent() @IsString() additional_solver_instructions?: string;
  /** A tool that still fails after its retries fails the run; false makes the failure its evidence. */
  @IfPresent() @IsBoolean() raise_tool_call_error = true;
  @IfPresent() @IsBoolean() verbose = false;
  // Beyond NAT, which has no limits here: what a plan may make the agent do and hold.
  /** Steps a plan may have; a longer plan fails the run. */
  @IfPresent() @IsInt() @Min(1) max_plan_steps = 50;
  /** Characters a step's input may have once evidence fills its placeholders; more fails the run. */
  @IfPresent() @IsInt() @Min(1) max_tool_input_chars = 100_000;
  /** Characters of the solver's prompt (the plan with every input and evidence); more fails the run. */
  @IfPresent() @IsInt() @Min(1) max_solver_prompt_chars = 500_000;
}

const ROLE_NAMES: Record<string, string> = { user: 'human', assistant: 'ai' };

/** The conversation cut to `max` messages as NAT trims it: the last ones, from a user's, system kept. */
function trimmed(messages: ChatMessage[], max: number): ChatMessage[] {
  const system = messages[0]?.role === 'system' ? [messages[0]] : [];
  const rest = messages.slice(system.length);
  const kept = rest.slice(Math.max(0, rest.length - Math.max(0, max - system.length)));
  while (kept.length && kept[0].role !== 'user') kept.shift();
  return [...system, ...kept];
}

async function rewoo(
  agent: string,
  config: ReWOOAgentConfig,
  llm: LlmClient,
  tools: Map<string, BuiltFunction>,
  input: unknown,
  ctx: WorkflowContext,
): Promise<string> {
  const messages = trimmed(conversationOf(input), config.max_history);
  const task = messageText(messages.at(-1)?.content ?? '');
  if (!task) return NO_INPUT;
  const names = [...tools.keys()];
  const described = [...tools].map(([name, fn]) => {
    const schema = config.include_tool_input_schema_in_tool_description && fn.parameters;
    return schema
      ? `${name}: ${fn.description}. Arguments must be provided as a valid JSON object following this format: ${JSON.stringify(schema)}`
      : `${name}: ${fn.description}`;
  });
  const values = {
    tools: described.join('\n'),
    tool_names: names.join(','),
    chat_history: messages
      .slice(0, -1)
      .map((m) => `${ROLE_NAMES[m.role] ?? m.role}: ${messageText(m.content)}`)
      .join('\n'),
    task,
  };
  const planned = await callModel(ctx, llm, {
    messages: [
      { role: 'system', content: fillTemplate(plannerPrompt(config), values) },
      { role: 'user', content: fillTemplate(PLANNER_USER_PROMPT, values) },
    ],
  });
  const steps = parsePlan(planned.content, agent, config.max_plan_steps);
  const { byPlaceholder, levels } = planLevels(steps);
  const run: PlanRun = { agent, config, tools, evidence: new Evidence(), inputs: new Map(), ctx };
  for (const level of levels) {
    const found = await Promise.all(level.map((p) => runStep(run, byPlaceholder.get(p)!)));
    level.forEach((p, i) => run.evidence.set(p, found[i]));
  }
  const answer = await callModel(ctx, llm, {
    messages: solverMessages(run, solverPrompt(config), byPlaceholder, task),
    onText: (delta) => ctx.emit(delta),
  });
  return answer.content;
}

const plannerPrompt = (config: ReWOOAgentConfig) =>
  (config.planner_prompt ?? PLANNER_SYSTEM_PROMPT) + (config.additional_planner_instructions ?? '');
const solverPrompt = (config: ReWOOAgentConfig) =>
  (config.solver_prompt ?? SOLVER_SYSTEM_PROMPT) + (config.additional_solver_instructions ?? '');

export const rewooAgent: FunctionType<ReWOOAgentConfig> = {
  type: 'rewoo_agent',
  description: 'ReWOO Agent Workflow',
  config: ReWOOAgentConfig,
  natFields: {
    renamed: { additional_instructions: 'additional_planner_instructions' },
    ignored: {
      workflow_alias: AGENT_FIELDS.ignored!.workflow_alias,
      log_response_max_chars: AGENT_FIELDS.ignored!.log_response_max_chars,
      name: AGENT_FIELDS.ignored!.name,
      middleware: AGENT_FIELDS.ignored!.middleware,
    },
  },
  check: (config) => [
    ...(config.tool_names.length
      ? []
      : [{ loc: ['tool_names'], message: 'No tools specified for ReWOO Agent' }]),
    ...['{tools}', '{tool_names}']
      .filter((name) => !plannerPrompt(config).includes(name))
      .map((name) => ({
        loc: ['planner_prompt'],
        message: `The planner prompt must contain ${name} so the planner agent knows about the configured tools.`,
      })),
    ...(solverPrompt(config)
      ? []
      : [{ loc: ['solver_prompt'], message: 'The solver prompt cannot be empty.' }]),
  ],
  references: (config) => [
    { loc: ['llm_name'], section: 'llms', name: config.llm_name },
    ...config.tool_names.map((name, i) => ({ loc: ['tool_names', i], section: 'functions' as const, name })),
  ],
  build(config, context) {
    const llm = context.llm(config.llm_name);
    let tools: Map<string, BuiltFunction> | undefined;
    const toolsOf = async (asker?: WorkflowContext) =>
      (tools ??= new Map(await resolveTools(config.tool_names, context, asker)));
    return chatFunction({
      type: 'rewoo_agent',
      name: context.name,
      description: config.description,
      model: llm.model,
      tools: async (asker) =>
        [...(await toolsOf(asker))].map(([name, fn]) => ({ name, description: fn.description })),
      run: async (input, ctx) =>
        agentResult(
          await rewoo(context.name, config, llm, await toolsOf(ctx), input, ctx),
          input,
          ctx,
          llm.model,
        ),
    });
  },
};
