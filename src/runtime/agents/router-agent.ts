import { IsArray, IsBoolean, IsDefined, IsInt, IsString, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { lastUserText } from '../chat-input';
import type { BuiltFunction, FunctionType } from '../function-type';
import { callModel } from '../llm/llm-call';
import { AGENT_FIELDS } from '../nat-fields';
import { answerText } from '../output-text';
import type { WorkflowContext } from '../workflow-context';
import { failureAnswer } from './agent-failure';
import { conversationOf } from './agent-input';
import { chatFunction } from './agent-function';
import { fillTemplate, unknownNames } from './python-format';
import { inputFor } from './sequential-executor';

// NAT's default prompts (nvidia-nat-langchain, router_agent), word for word.
const SYSTEM_PROMPT =
  '\nYou are a Router Agent responsible for analyzing incoming requests and routing them to the most appropriate branch.\n\n' +
  'Available branches:\n{branches}\n\n' +
  'CRITICAL INSTRUCTIONS:\n' +
  "- Analyze the user's request carefully\n" +
  '- Select exactly ONE branch that best handles the request from: [{branch_names}]\n' +
  '- Respond with ONLY the exact branch name, nothing else\n' +
  '- Be decisive - choose the single best match, if the request could fit multiple branches,\n' +
  '  choose the most specific/specialized one\n' +
  '- If no branch perfectly fits, choose the closest match\n\n' +
  'Your response MUST contain ONLY the branch name. Do not include any explanations, reasoning, or additional text.\n\n' +
  'Examples:\n' +
  'User: "How do I calculate 15 + 25?"\nResponse: calculator_tool\n\n' +
  'User: "What\'s the weather like today?"\nResponse: weather_service\n\n' +
  'User: "Send an email to John"\nResponse: email_tool';
const USER_PROMPT =
  '\nPrevious conversation history:\n{chat_history}\n\n' +
  'To respond to the request: {request}, which branch should be chosen?\n\n' +
  'Respond with only the branch name.';
const SYSTEM_NAMES = ['branches', 'branch_names'];
const USER_NAMES = ['chat_history', 'request'];

/**
 * `_type: router_agent` (NAT's control flow): its LLM picks one of `branches` for the request (the first
 * branch, in config order, whose name is in the answer, case aside), and that branch answers it.
 */
export class RouterAgentConfig {
  @IsString() _type!: string;
  @IsDefined() @IsString() llm_name!: string;
  @IsArray() @IsString({ each: true }) branches: string[] = [];
  @IfPresent() @IsString() description = 'Router Agent Workflow';
  @IfPresent() @IsString() system_prompt = SYSTEM_PROMPT;
  @IfPresent() @IsString() user_prompt = USER_PROMPT;
  @IfPresent() @IsInt() @Min(1) max_router_retries = 3;
  /** NAT answers a failure with the bare error text when verbose, else with "Router agent failed…". */
  @IfPresent() @IsBoolean() verbose = false;
}

/** The model named no branch, `max_router_retries` times (NAT's message). */
class RouterNoBranch extends Error {
  /** Says only that the agent's own retries ran out (see isExposed). */
  readonly expose = true;

  constructor() {
    super('Router Agent failed to choose a branch');
  }
}

/** The conversation before the request, one `role: content` line per message. */
function historyOf(input: unknown): string {
  return conversationOf(input)
    .slice(0, -1)
    .map((m) => `${m.role}: ${typeof m.content === 'string' ? m.content : ''}`)
    .join('\n');
}

async function route(
  config: RouterAgentConfig,
  branches: [string, BuiltFunction][],
  llm: Parameters<typeof callModel>[1],
  input: unknown,
  ctx: WorkflowContext,
): Promise<unknown> {
  const request = lastUserText(conversationOf(input));
  const messages = [
    {
      role: 'system' as const,
      content: fillTemplate(config.system_prompt, {
        branches: branches.map(([name, fn]) => `${name}: ${fn.description}`).join('\n'),
        branch_names: branches.map(([name]) => name).join(','),
      }),
    },
    {
      role: 'user' as const,
      content: fillTemplate(config.user_prompt, { chat_history: historyOf(input), request }),
    },
  ];
  for (let attempt = 1; attempt <= config.max_router_retries; attempt++) {
    const answer = (await callModel(ctx, llm, { messages })).content.toLowerCase();
    const chosen = branches.find(([name]) => answer.includes(name.toLowerCase()));
    if (!chosen) continue;
    const [name, fn] = chosen;
    const given = inputFor(fn, request);
    return answerText(await ctx.step(name, 'tool', () => fn.run(given, ctx), { input: given }));
  }
  throw new RouterNoBranch();
}

export const routerAgent: FunctionType<RouterAgentConfig> = {
  type: 'router_agent',
  description: 'Asks its LLM which one of its branches fits the request, then runs that branch',
  config: RouterAgentConfig,
  natFields: {
    ignored: {
      ...AGENT_FIELDS.ignored,
      detailed_logs: 'the routing answer and the branch are steps of the run (intermediate steps, traces)',
    },
  },
  check: (config) => [
    ...(config.branches.length
      ? []
      : [{ loc: ['branches'], message: 'No branches specified for Router Agent' }]),
    ...[
      ['system_prompt', config.system_prompt, SYSTEM_NAMES] as const,
      ['user_prompt', config.user_prompt, USER_NAMES] as const,
    ].flatMap(([field, template, names]) =>
      unknownNames(template, names).map((name) => ({
        loc: [field],
        message: `unknown placeholder {${name}} (it may use ${names.map((n) => `{${n}}`).join(', ')})`,
      })),
    ),
  ],
  references: (config) => [
    { loc: ['llm_name'], section: 'llms', name: config.llm_name },
    ...config.branches.map((name, i) => ({ loc: ['branches', i], section: 'functions' as const, name })),
  ],
  build(config, context) {
    const llm = context.llm(config.llm_name);
    return chatFunction({
      type: 'router_agent',
      name: context.name,
      description: config.description,
      model: llm.model,
      inputDescription: 'The request to route',
      run: async (input, ctx) => {
        const branches = config.branches.map((name) => [name, context.fn(name)] as [string, BuiltFunction]);
        try {
          return await route(config, branches, llm, input, ctx);
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          // NAT answers with the failure instead of raising it.
          const message = failureAnswer(err, context.name, ctx);
          return config.verbose ? message : `Router agent failed with exception: ${message}`;
        }
      },
    });
  },
};
