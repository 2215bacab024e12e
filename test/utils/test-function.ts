import { IsOptional, IsString } from 'class-validator';
import { lastUserText } from '../../src/runtime/chat-input';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import type { FunctionRegistry } from '../../src/runtime/function-registry';
import { ScriptedInput } from '../../src/runtime/functions/scripted.function';
import type { WorkflowFn } from '../../src/runtime/workflow-context';

class TestFunctionConfig {
  @IsString() _type!: string;
  @IsOptional() @IsString() description?: string;
}

/**
 * The built-in registry plus a workflow `_type` for a test: it takes NAT's agent input
 * (`input_message`; chat routes pass the last user message) and runs `run`.
 */
export function registryWith(type: string, run: WorkflowFn): FunctionRegistry {
  return builtinRegistry().register({
    type,
    description: `test workflow ${type}`,
    config: TestFunctionConfig,
    build: () => ({
      type,
      description: `test workflow ${type}`,
      input: { kind: 'schema', dto: ScriptedInput },
      fromChat: (request) => ({ input_message: lastUserText(request.messages) }),
      run,
    }),
  });
}
