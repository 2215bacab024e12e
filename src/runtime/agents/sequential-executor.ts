import { ArrayNotEmpty, IsArray, IsBoolean, IsObject, IsString } from 'class-validator';
import { redactUrlsIn } from '../../core/outbound/redact-url';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { lastUserText } from '../chat-input';
import type { BuiltFunction, FunctionType } from '../function-type';
import { FUNCTION_BASE_FIELDS } from '../nat-fields';
import { answerText } from '../output-text';
import type { WorkflowContext } from '../workflow-context';
import { conversationOf } from './agent-input';
import { chatFunction } from './agent-function';

/**
 * `_type: sequential_executor` (NeMo Agent Toolkit's control flow): the functions of `tool_list` run one
 * after the other, each given the previous one's output; the last one's output is the answer.
 */
export class SequentialExecutorConfig {
  @IsString() _type!: string;
  @IfPresent() @IsString() description = 'Sequential Executor Workflow';
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) tool_list!: string[];
  /** Per tool `{use_streaming}`: a streamed tool's output is joined into one text either way. */
  @IfPresent() @IsObject() tool_execution_config: Record<string, { use_streaming?: boolean }> = {};
  /** An exception ends the chain with `Error: …` as the answer instead of failing the run. */
  @IfPresent() @IsBoolean() return_error_on_exception = false;
}

/**
 * What the next function receives: text for a function that takes a chat; for one that takes arguments,
 * an object output as it is, a JSON object in text parsed, or text as its only required string field.
 */
export function inputFor(fn: BuiltFunction, previous: unknown): unknown {
  const text = typeof previous === 'string' ? previous : answerText(previous);
  if (!fn.parameters) return fn.fromChat({ messages: [{ role: 'user', content: text }] });
  if (previous !== null && typeof previous === 'object' && !Array.isArray(previous)) return previous;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed;
  } catch {
    // not JSON: text
  }
  const required = (fn.parameters.required as string[] | undefined) ?? [];
  const properties = (fn.parameters.properties ?? {}) as Record<string, { type?: string }>;
  const field = required.length === 1 ? required[0] : Object.keys(properties)[0];
  return field === undefined ? {} : { [field]: text };
}

async function runChain(
  config: SequentialExecutorConfig,
  fn: (name: string) => BuiltFunction,
  input: unknown,
  ctx: WorkflowContext,
): Promise<unknown> {
  let output: unknown = lastUserText(conversationOf(input));
  for (const name of config.tool_list) {
    const tool = fn(name);
    const given = inputFor(tool, output);
    try {
      output = await ctx.step(name, 'tool', () => tool.run(given, ctx), { input: given });
    } catch (err) {
      if (!config.return_error_on_exception || ctx.signal.aborted) throw err;
      // An error may quote a URL with a key in it: the answer never carries that.
      return `Error: ${name} failed: ${redactUrlsIn((err as Error).message ?? String(err))}`;
    }
  }
  return typeof output === 'string' ? output : answerText(output);
}

export const sequentialExecutor: FunctionType<SequentialExecutorConfig> = {
  type: 'sequential_executor',
  description: 'Runs a list of functions one after the other, each given the output of the one before',
  config: SequentialExecutorConfig,
  natFields: {
    ignored: {
      ...FUNCTION_BASE_FIELDS,
      raise_type_incompatibility:
        'functions here declare no output types, so adjacent ones are not checked against each other',
    },
  },
  check: (config) =>
    Object.keys(config.tool_execution_config)
      .filter((name) => !config.tool_list.includes(name))
      .map((name) => ({
        loc: ['tool_execution_config', name],
        message: `"${name}" is not in tool_list`,
      })),
  references: (config) =>
    config.tool_list.map((name, i) => ({ loc: ['tool_list', i], section: 'functions' as const, name })),
  build(config, context) {
    return chatFunction({
      type: 'sequential_executor',
      name: context.name,
      description: config.description,
      inputDescription: 'The input of the first function',
      run: (input, ctx) => runChain(config, context.fn, input, ctx),
    });
  },
};
