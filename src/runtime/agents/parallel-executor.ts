import { ArrayNotEmpty, IsArray, IsBoolean, IsString } from 'class-validator';
import { redactUrlsIn } from '../../core/outbound/redact-url';
import { IfPresent } from '../../core/validation/if-present.decorator';
import { lastUserText } from '../chat-input';
import type { BuiltFunction, FunctionType } from '../function-type';
import { FUNCTION_BASE_FIELDS } from '../nat-fields';
import { answerText } from '../output-text';
import type { WorkflowContext } from '../workflow-context';
import { chatFunction } from './agent-function';
import { conversationOf } from './agent-input';
import { inputFor } from './sequential-executor';

/**
 * `_type: parallel_executor` (NAT's control flow, package nvidia-nat-langchain): every function of
 * `tool_list` gets the same request at once; the answer is their outputs, each as `<name>:\n<output>`,
 * joined by a blank line in `tool_list` order.
 */
export class ParallelExecutorConfig {
  @IsString() _type!: string;
  @IfPresent() @IsString() description = 'Parallel Executor Workflow';
  @IsArray() @ArrayNotEmpty() @IsString({ each: true }) tool_list!: string[];
  /** A failing branch gives `ERROR: <kind>: <message>` as its output instead of failing the run. */
  @IfPresent() @IsBoolean() return_error_on_exception = false;
}

/** NAT's branch error payload: `ERROR: <exception class>: <message>`. */
function errorPayload(err: unknown): string {
  const kind = err instanceof Error ? err.name : 'Error';
  const message = err instanceof Error ? err.message : String(err);
  // An error may quote a URL with a key in it: the answer never carries that.
  return `ERROR: ${kind}: ${redactUrlsIn(message)}`;
}

async function fanOut(
  config: ParallelExecutorConfig,
  fn: (name: string) => BuiltFunction,
  input: unknown,
  ctx: WorkflowContext,
): Promise<string> {
  const request = lastUserText(conversationOf(input));
  const outputs = await Promise.all(
    config.tool_list.map(async (name) => {
      const tool = fn(name);
      const given = inputFor(tool, request);
      try {
        const output = await ctx.step(name, 'tool', () => tool.run(given, ctx), { input: given });
        return typeof output === 'string' ? output : answerText(output);
      } catch (err) {
        if (!config.return_error_on_exception || ctx.signal.aborted) throw err;
        return errorPayload(err);
      }
    }),
  );
  return config.tool_list.map((name, i) => `${name}:\n${outputs[i]}`).join('\n\n');
}

export const parallelExecutor: FunctionType<ParallelExecutorConfig> = {
  type: 'parallel_executor',
  description: 'Runs a list of functions at once on the same input and joins their outputs',
  config: ParallelExecutorConfig,
  natFields: {
    ignored: {
      ...FUNCTION_BASE_FIELDS,
      detailed_logs: 'each branch is a step of the run (intermediate steps, traces), with its timing',
    },
  },
  references: (config) =>
    config.tool_list.map((name, i) => ({ loc: ['tool_list', i], section: 'functions' as const, name })),
  build(config, context) {
    return chatFunction({
      type: 'parallel_executor',
      name: context.name,
      description: config.description,
      inputDescription: 'The input every function gets',
      run: (input, ctx) => fanOut(config, context.fn, input, ctx),
    });
  },
};
