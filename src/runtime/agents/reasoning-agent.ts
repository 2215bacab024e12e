import { IsBoolean, IsDefined, IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ChatRequest } from '../chat-input';
import { resultText } from '../chat-completion';
import type { BuiltFunction, FunctionType } from '../function-type';
import { callModel } from '../llm/llm-call';
import { AGENT_FIELDS } from '../nat-fields';
import type { WorkflowContext } from '../workflow-context';
import { ChatInput, conversationOf } from './agent-input';
import { chatFunction } from './agent-function';
import { fillTemplate, pythonRepr, unknownNames } from './python-format';

// NAT's default prompts (nvidia-nat-langchain, reasoning_agent), word for word: configs that do not set
// their own get the plans NAT users are used to.
const REASONING_PROMPT =
  'You are an expert reasoning model task with creating a detailed execution plan' +
  ' for a system that has the following description:\n\n' +
  '**Description:** \n{augmented_function_desc}\n\n' +
  'Given the following input and a list of available tools, please provide a detailed step-by-step plan' +
  ' that an instruction following system can use to address the input. Ensure the plan includes:\n\n' +
  '1. Identifying the key components of the input.\n' +
  '2. Determining the most suitable tools for each task.\n' +
  '3. Outlining the sequence of actions to be taken.\n\n' +
  '**Input:** \n{input_text}\n\n' +
  '**Tools and description of the tool:** \n{tools}\n\n' +
  'An example plan could look like this:\n\n' +
  '1. Call tool A with input X\n' +
  '2. Call tool B with input Y\n' +
  '3. Interpret the output of tool A and B\n' +
  '4. Return the final result' +
  '\n\n **PLAN:**\n';
const INSTRUCTION_PROMPT =
  'Answer the following question based on message history: {input_text}' +
  '\n\nHere is a plan for execution that you could use to guide you if you wanted to:' +
  '\n\n{reasoning_output}' +
  '\n\nNOTE: Remember to follow your guidance on how to format output, etc.' +
  '\n\n You must respond with the answer to the original question directly to the user.';
const REASONING_NAMES = ['augmented_function_desc', 'input_text', 'tools'];
const INSTRUCTION_NAMES = ['input_text', 'reasoning_output'];

export class ReasoningAgentConfig {
  @IsString() _type!: string;
  /** The reasoning model that writes the plan. */
  @IsDefined() @IsString() llm_name!: string;
  /** The function (usually an agent) that carries the plan out. */
  @IsDefined() @IsString() augmented_fn!: string;
  @IfPresent() @IsString() description = 'Reasoning Agent';
  @IfPresent() @IsString() reasoning_prompt_template = REASONING_PROMPT;
  @IfPresent() @IsString() instruction_prompt_template = INSTRUCTION_PROMPT;
  // NAT logs the plan with it; the plan is the LLM step's output here.
  @IfPresent() @IsBoolean() verbose = false;
}

/** A reasoning model's answer without its `<think>…</think>` part (NAT's remove_r1_think_tags). */
export function withoutThinking(text: string): string {
  const end = text.indexOf('</think>');
  return end === -1 ? text : text.slice(end + '</think>'.length).trimStart();
}

/** NAT shows the model each message as Python prints its `model_dump()`, one per line. */
function inputText(input: unknown): string {
  return conversationOf(input)
    .map((m) => {
      const { content, role, tool_calls, tool_call_id, ...rest } = m as unknown as Record<string, unknown>;
      return `${pythonRepr({ content, role, tool_calls: tool_calls ?? null, tool_call_id: tool_call_id ?? null, ...rest })}\n`;
    })
    .join('');
}

async function reason(
  config: ReasoningAgentConfig,
  augmented: BuiltFunction,
  llm: Parameters<typeof callModel>[1],
  input: unknown,
  ctx: WorkflowContext,
): Promise<unknown> {
  const tools = (await augmented.tools?.(ctx)) ?? [];
  const text = inputText(input);
  const prompt = fillTemplate(config.reasoning_prompt_template, {
    augmented_function_desc: augmented.description,
    input_text: text,
    tools: tools.map((t) => `- ${t.name}: ${t.description}`).join('\n'),
  });
  const plan = await callModel(ctx, llm, { messages: [{ role: 'user', content: prompt }] });
  const instruction = fillTemplate(config.instruction_prompt_template, {
    input_text: text,
    reasoning_output: withoutThinking(plan.content),
  });
  const request: ChatRequest =
    input instanceof ChatInput
      ? { ...input.request, messages: [{ role: 'user', content: instruction }] }
      : { messages: [{ role: 'user', content: instruction }] };
  const result = await augmented.run(augmented.fromChat(request), ctx);
  // A chat face gets the augmented agent's chat completion; the workflow routes get its text.
  return input instanceof ChatInput ? result : resultText(result);
}

/**
 * `reasoning_agent` (NAT's, package nvidia-nat-langchain): a reasoning model writes a step-by-step plan
 * from the request and the augmented function's tools; the augmented function (an agent) then answers
 * the request with that plan as guidance. Its answer (streamed on streaming routes) is the answer.
 */
export const reasoningAgent: FunctionType<ReasoningAgentConfig> = {
  type: 'reasoning_agent',
  description: 'Reasoning function that generates a detailed execution plan for a system based on the input.',
  config: ReasoningAgentConfig,
  natFields: { ignored: AGENT_FIELDS.ignored },
  check: (config) => [
    ...unknownNames(config.reasoning_prompt_template, REASONING_NAMES).map((name) => ({
      loc: ['reasoning_prompt_template'],
      message: `unknown placeholder {${name}} (it may use ${REASONING_NAMES.map((n) => `{${n}}`).join(', ')})`,
    })),
    ...unknownNames(config.instruction_prompt_template, INSTRUCTION_NAMES).map((name) => ({
      loc: ['instruction_prompt_template'],
      message: `unknown placeholder {${name}} (it may use ${INSTRUCTION_NAMES.map((n) => `{${n}}`).join(', ')})`,
    })),
  ],
  references: (config) => [
    { loc: ['llm_name'], section: 'llms', name: config.llm_name },
    { loc: ['augmented_fn'], section: 'functions', name: config.augmented_fn },
  ],
  build(config, context) {
    const llm = context.llm(config.llm_name);
    return chatFunction({
      type: 'reasoning_agent',
      name: context.name,
      description: config.description,
      model: llm.model,
      run: (input, ctx) => {
        const augmented = context.fn(config.augmented_fn);
        if (!augmented.description) {
          throw new Error(
            `reasoning_agent: function "${config.augmented_fn}" has no description, and a plan needs one`,
          );
        }
        return reason(config, augmented, llm, input, ctx);
      },
    });
  },
};
