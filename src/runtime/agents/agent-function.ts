import { Logger } from '@nestjs/common';
import { lastUserText, type ChatMessage, type ChatRequest } from '../chat-input';
import { resultText } from '../chat-completion';
import {
  GROUP_SEPARATOR,
  type BuildContext,
  type BuiltFunction,
  type ConfigProblem,
  type Ctor,
  type FunctionType,
} from '../function-type';
import { ScriptedInput } from '../functions/scripted.function';
import type { LlmClient } from '../llm/llm-client';
import { AGENT_FIELDS, type NatFields } from '../nat-fields';
import type { JsonSchema } from '../tools/json-schema';
import type { WorkflowContext } from '../workflow-context';
import type { AgentConfig } from './agent.config';
import { agentResult, ChatInput, conversationOf } from './agent-input';
import { AgentTools } from './agent-tools';

const logger = new Logger('AgentTools');

/** What an agent's loop works with during one run. */
export interface AgentRun<C extends AgentConfig> {
  config: C;
  /** The name the agent is built under (`workflow` or its `functions:` key). */
  name: string;
  llm: LlmClient;
  tools: AgentTools;
  /** The conversation to continue; its last message is the user's. */
  conversation: ChatMessage[];
  ctx: WorkflowContext;
}

export interface AgentSpec<C extends AgentConfig> {
  type: string;
  /** NAT's default description (what a calling agent reads when this one is its tool). */
  description: string;
  config: Ctor<C>;
  /** NAT fields of this agent beyond those every agent has (AGENT_FIELDS). */
  natFields?: NatFields;
  check?(config: C): ConfigProblem[];
  /** Its loop hands the user's images and files to the model (modelMessage): a chat may carry them. */
  readsAttachments?: boolean;
  /** Runs the agent until it has a final answer. */
  loop(run: AgentRun<C>): Promise<string>;
}

/** What a function that takes a chat is built from (see chatFunction). */
export interface ChatFunctionSpec {
  type: string;
  /** The name it is built under: its FUNCTION step's name. */
  name: string;
  description: string;
  model?: string;
  /** What its one argument is, as a calling agent reads it. */
  inputDescription?: string;
  tools?: BuiltFunction['tools'];
  /** The images its chat may carry (only for a function that hands them to its model). */
  images?: BuiltFunction['images'];
  /** The files its chat may carry (only for a function that hands them to its model). */
  files?: BuiltFunction['files'];
  /** The work, run inside the step; its result is the function's (a chat completion or text). */
  run(input: unknown, ctx: WorkflowContext): Promise<unknown>;
}

/**
 * A function that takes a chat: a chat face's request or the generate routes' `input_message` (one
 * string argument when another agent calls it as a tool), run inside one FUNCTION step named after it
 * whose input is the request's last user message and whose output is the answer's text.
 */
export function chatFunction(spec: ChatFunctionSpec): BuiltFunction {
  const parameters: JsonSchema = {
    type: 'object',
    properties: {
      input_message: { type: 'string', description: spec.inputDescription ?? 'The request for this agent' },
    },
    required: ['input_message'],
  };
  return {
    type: spec.type,
    description: spec.description,
    model: spec.model,
    input: { kind: 'schema', dto: ScriptedInput },
    fromChat: (request: ChatRequest) => new ChatInput(request),
    parameters,
    ...(spec.tools ? { tools: spec.tools } : {}),
    ...(spec.images ? { images: spec.images } : {}),
    ...(spec.files ? { files: spec.files } : {}),
    run: (input, ctx) =>
      ctx.step(spec.name, 'function', () => spec.run(input, ctx), {
        input: lastUserText(conversationOf(input)),
        end: (result) => ({ output: resultText(result) }),
      }),
  };
}

/** The system prompt with its additional instructions, if any. */
export function systemPrompt(config: AgentConfig, fallback?: string): string | undefined {
  const base = config.system_prompt ?? fallback;
  if (!config.additional_instructions) return base;
  return base ? `${base}\n\n${config.additional_instructions}` : config.additional_instructions;
}

/** A workflow `_type` for an LLM agent: its input, its references, and its run inside a FUNCTION step. */
export function agentType<C extends AgentConfig>(spec: AgentSpec<C>): FunctionType<C> {
  return {
    type: spec.type,
    description: spec.description,
    config: spec.config,
    natFields: {
      renamed: { ...AGENT_FIELDS.renamed, ...spec.natFields?.renamed },
      switches: { ...AGENT_FIELDS.switches, ...spec.natFields?.switches },
      ignored: { ...AGENT_FIELDS.ignored, ...spec.natFields?.ignored },
    },
    check(config) {
      const problems = spec.check?.(config) ?? [];
      if (Array.isArray(config.llm_name) && config.llm_name.length === 0) {
        problems.push({ loc: ['llm_name'], message: 'name at least one entry of llms:' });
      }
      return problems;
    },
    references: (config) => [
      ...[config.llm_name].flat().map((name, i) => ({
        loc: Array.isArray(config.llm_name) ? ['llm_name', i] : ['llm_name'],
        section: 'llms' as const,
        name,
      })),
      ...config.tool_names.map((name, i) => ({
        loc: ['tool_names', i],
        section: 'functions' as const,
        name,
      })),
    ],
    build(config, context) {
      const llms = [config.llm_name].flat().map((name) => context.llm(name));
      const llm = llms.find((l) => l.hasApiKey) ?? llms[0];
      let tools: AgentTools | undefined;
      const toolsOf = async (asker?: WorkflowContext) =>
        (tools ??= new AgentTools(
          await resolveTools(config.tool_names, context, asker),
          config.handle_tool_errors,
        ));
      return chatFunction({
        type: spec.type,
        name: context.name,
        description: config.description ?? spec.description,
        model: llm.model,
        images: spec.readsAttachments ? context.images : undefined,
        files: spec.readsAttachments ? context.files : undefined,
        tools: async (asker) => {
          const all = await toolsOf(asker);
          return all.names().map((name) => ({ name, description: all.get(name)!.description }));
        },
        run: async (input, ctx) => {
          const conversation = conversationOf(input);
          const run = { config, name: context.name, llm, tools: await toolsOf(ctx), conversation, ctx };
          return agentResult(await spec.loop(run), input, ctx, llm.model);
        },
      });
    },
  };
}

/**
 * An agent's `tool_names` as functions: a function of `functions:`, a whole function group (each of its
 * tools as `<group>__<tool>`), or one tool of a group. A group connects first (once, shared). A name is
 * one tool: a group's tool named like a function the agent lists, or like a tool an earlier group gave,
 * is left out with a warning naming both (the operator's function wins, whatever the order of the list).
 */
export async function resolveTools(
  names: string[],
  context: BuildContext,
  asker?: WorkflowContext,
): Promise<[string, BuiltFunction][]> {
  const functions = new Set(names.filter((name) => context.fn(name)));
  const tools = new Map<string, { fn: BuiltFunction; group?: string }>();
  const offer = (name: string, fn: BuiltFunction, group?: string) => {
    const taken = group && functions.has(name) ? { fn: context.fn(name) } : tools.get(name);
    // The same tool listed twice (a group and one of its tools) is one tool.
    if (!taken || taken.fn === fn || (group && taken.group === group)) {
      if (!taken) tools.set(name, { fn, group });
      return;
    }
    const holder = taken.group ? `function group "${taken.group}"'s tool` : `functions.${name}`;
    const agent = context.name === 'workflow' ? 'workflow' : `functions.${context.name}`;
    logger.warn(
      `${agent}.tool_names: function group "${group}"'s tool "${name}" is left out: ${holder} has that name`,
    );
  };
  for (const name of names) {
    if (functions.has(name)) {
      offer(name, context.fn(name));
      continue;
    }
    const groupName = name.includes(GROUP_SEPARATOR) ? name.slice(0, name.indexOf(GROUP_SEPARATOR)) : name;
    const group = context.group(groupName);
    if (!group) throw new Error(`tool_names: no function or function group "${name}"`);
    await group.connect(asker);
    if (groupName === name) {
      for (const [full, fn] of group.functions()) offer(full, fn, groupName);
      continue;
    }
    const one = group.functions().get(name);
    if (!one) {
      const offered = [...group.functions().keys()].join(', ') || 'none';
      throw new Error(
        `tool_names: function group "${groupName}" has no tool "${name}" (its tools: ${offered})`,
      );
    }
    offer(name, one, groupName);
  }
  return [...tools].map(([name, { fn }]) => [name, fn]);
}

/** The run stopped for want of a final answer within `max_iterations` calls to the model. */
export class AgentIterationLimit extends Error {
  /** Names the agent's own settings, nothing internal (see isExposed). */
  readonly expose = true;

  constructor(run: AgentRun<AgentConfig>) {
    super(
      `Agent "${run.name}" made ${run.config.max_iterations} calls to the model (max_iterations) without ` +
        `reaching a final answer (LLM "${run.llm.name}", model "${run.llm.model}")`,
    );
    this.name = 'MaxIterationsReached';
  }
}
