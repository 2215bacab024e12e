import { isChatCompletion, resultText } from '../chat-completion';
import type { BuiltFunction } from '../function-type';
import type { WorkflowContext } from '../workflow-context';
import { quoted } from './model-text';
import { fillTemplate } from './python-format';
import type { ReWOOAgentConfig } from './rewoo-agent';
import { CharBudget, type Evidence, solverPlan, withEvidence } from './rewoo-evidence';
import { MAX_INPUT_DEPTH, nestsDeeper, parsedInput, ReWOOLimitExceeded, type PlanStep } from './rewoo-plan';
import { SOLVER_USER_PROMPT } from './rewoo-prompts';

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** A function's output as evidence: text, or a structured value kept as it is. */
function evidenceOf(output: unknown): unknown {
  if (isChatCompletion(output)) return resultText(output);
  if (output === null || output === undefined || output === '') return '';
  return typeof output === 'object' ? output : String(output);
}

/** What a function is given for a planned input: its arguments, or a chat for one that takes a chat. */
function argumentsFor(fn: BuiltFunction, input: unknown): unknown {
  if (!fn.parameters) {
    const text = typeof input === 'string' ? input : JSON.stringify(input);
    return fn.fromChat({ messages: [{ role: 'user', content: text }] });
  }
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) return input;
  const fields = Object.keys((fn.parameters.properties as object | undefined) ?? {});
  if (fields.length === 1) return { [fields[0]]: input };
  throw new Error(
    `the input must be a JSON object with ${fields.map((f) => `"${f}"`).join(', ') || 'no fields'}`,
  );
}

/** One run of the plan: what its steps read and what they found. */
export interface PlanRun {
  agent: string;
  config: ReWOOAgentConfig;
  tools: Map<string, BuiltFunction>;
  evidence: Evidence;
  /** Each step's input as it ran, placeholders filled (what the solver is shown). */
  inputs: Map<string, unknown>;
  ctx: WorkflowContext;
}

/** A step's input with the evidence in place, within max_tool_input_chars. */
function stepInput(run: PlanRun, step: PlanStep): unknown {
  const { placeholder, tool_input } = step.evidence;
  const max = run.config.max_tool_input_chars;
  const which = `the input of step ${quoted(placeholder)}`;
  const budget = new CharBudget(
    max,
    () =>
      new ReWOOLimitExceeded(
        run.agent,
        `${which} passes max_tool_input_chars (${max}) once evidence fills it`,
      ),
  );
  const filled = withEvidence(tool_input, run.evidence, budget);
  run.inputs.set(placeholder, filled);
  const input = parsedInput(filled);
  if (nestsDeeper(input))
    throw new ReWOOLimitExceeded(
      run.agent,
      `${which} nests lists and objects more than ${MAX_INPUT_DEPTH} deep`,
    );
  return input;
}

export async function runStep(run: PlanRun, step: PlanStep): Promise<unknown> {
  const { config, tools, ctx } = run;
  const { tool } = step.evidence;
  const input = stepInput(run, step);
  const fn = tools.get(tool);
  if (!fn)
    return `There is no tool named ${quoted(tool)}. Tool must be one of ${[...tools.keys()].join(', ')}.`;
  let last: unknown;
  for (let attempt = 1; attempt <= config.tool_call_max_retries; attempt++) {
    try {
      const given = argumentsFor(fn, input);
      const output = await ctx.step(tool, 'tool', () => fn.run(given, ctx), { input: given });
      const value = evidenceOf(output);
      return value === '' ? `The tool ${tool} provided an empty response.` : value;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      last = err;
      if (attempt < config.tool_call_max_retries) await sleep(2 ** attempt * 1000, ctx.signal);
    }
  }
  const failure = `Tool call failed after all retry attempts. Last error: ${(last as Error)?.message ?? String(last)}`;
  if (config.raise_tool_call_error) throw new Error(`Tool call failed: ${failure}`);
  return failure;
}

/** The solver's two messages, within max_solver_prompt_chars. */
export function solverMessages(
  run: PlanRun,
  system: string,
  byPlaceholder: Map<string, PlanStep>,
  task: string,
) {
  const max = run.config.max_solver_prompt_chars;
  const exceeded = () =>
    new ReWOOLimitExceeded(
      run.agent,
      `the solver's prompt (the plan with its inputs and evidence) passes max_solver_prompt_chars (${max})`,
    );
  const budget = new CharBudget(max - system.length - SOLVER_USER_PROMPT.length - task.length, exceeded);
  const solved = { plan: solverPlan(byPlaceholder, run.inputs, run.evidence, budget), task };
  const messages = [
    { role: 'system' as const, content: fillTemplate(system, solved) },
    { role: 'user' as const, content: fillTemplate(SOLVER_USER_PROMPT, solved) },
  ];
  // A solver_prompt of its own may show the plan once more.
  if (messages[0].content.length + messages[1].content.length > max) throw exceeded();
  return messages;
}
