import { IsOptional, IsString } from 'class-validator';
import { lastUserText } from '../../src/core/dto/chat-request.dto';
import type { FunctionType } from '../../src/runtime/function-type';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { ScriptedInputDto } from '../../src/runtime/functions/scripted.function';

class WhoamiConfig {
  @IsString() _type!: string;
  @IsOptional() @IsString() description?: string;
}

/** A test workflow that answers with what it was told of its caller: `ctx.identity`. */
export function whoamiRegistry() {
  const whoami: FunctionType<WhoamiConfig> = {
    type: 'whoami',
    description: 'returns ctx.identity',
    config: WhoamiConfig,
    build: () => ({
      type: 'whoami',
      description: 'returns ctx.identity',
      input: { kind: 'schema', dto: ScriptedInputDto },
      fromChat: (request) => ({ input_message: lastUserText(request.messages) }),
      run: async (_input, ctx) => ({ identity: ctx.identity }),
    }),
  };
  return builtinRegistry().register(whoami);
}
