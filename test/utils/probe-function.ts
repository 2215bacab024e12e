import { IsOptional, IsString } from 'class-validator';
import { lastUserText } from '../../src/core/dto/chat-request.dto';
import type { FunctionType } from '../../src/runtime/function-type';
import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { sleep } from '../../src/runtime/text';
import type { WorkflowContext } from '../../src/runtime/workflow-context';
import { ScriptedInputDto } from '../../src/runtime/functions/scripted.function';

class ProbeConfig {
  @IsString() _type!: string;
  @IsOptional() @IsString() description?: string;
}

/** What a probe workflow saw: each run's context and how it ended. */
export interface ProbeRun {
  ctx: WorkflowContext;
  input: unknown;
  ended?: 'completed' | 'aborted';
  abortReason?: unknown;
  chunks: number;
}

/**
 * A test workflow that streams a chunk every 10 ms until aborted (or 500 chunks), recording what it
 * received, so tests can assert what the workflow itself observed.
 */
export function probeRegistry(): { registry: ReturnType<typeof builtinRegistry>; runs: ProbeRun[] } {
  const runs: ProbeRun[] = [];
  const probe: FunctionType<ProbeConfig> = {
    type: 'probe',
    description: 'test probe',
    config: ProbeConfig,
    build: () => ({
      type: 'probe',
      description: 'test probe',
      input: { kind: 'schema', dto: ScriptedInputDto },
      fromChat: (request) => ({ input_message: lastUserText(request.messages) }),
      async run(input, ctx) {
        const run: ProbeRun = { ctx, input, chunks: 0 };
        runs.push(run);
        try {
          for (let i = 0; i < 500; i++) {
            await sleep(10, ctx.signal);
            ctx.emit(`chunk${i} `);
            run.chunks++;
          }
          run.ended = 'completed';
          return 'done';
        } catch (err) {
          run.ended = 'aborted';
          run.abortReason = ctx.signal.reason;
          throw err;
        }
      },
    }),
  };
  return { registry: builtinRegistry().register(probe), runs };
}
