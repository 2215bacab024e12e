import { IsDefined, IsIn, IsString } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { ChatRequest } from '../chat-input';
import { lastUserText } from '../chat-input';
import type { FunctionType } from '../function-type';

export class PerUserCounterConfig {
  @IsString() _type!: string;
  @IfPresent() @IsString() description?: string;
}

/** The counter's input: what to do with the count. */
export class CounterInput {
  @IsDefined()
  @IsIn(['increment', 'get'], { message: "Input should be 'increment' or 'get'" })
  action!: 'increment' | 'get';
}

/**
 * A counter that lives in its workflow instance: declared `per_user: true`, each user counts alone
 * (`config/examples/per-user-counter.yml`). Answers `{count, user_id}` as it is.
 */
export const perUserCounterFunction: FunctionType<PerUserCounterConfig> = {
  type: 'per_user_counter',
  description: 'Counts per user: {"action": "increment" | "get"} → {"count", "user_id"}.',
  config: PerUserCounterConfig,
  build(config) {
    let count = 0;
    return {
      type: 'per_user_counter',
      description: config.description ?? 'A per-user counter.',
      input: { kind: 'schema', dto: CounterInput },
      fromChat: (request: ChatRequest) => ({
        action: lastUserText(request.messages).trim() === 'get' ? 'get' : 'increment',
      }),
      async run(input, ctx) {
        if ((input as CounterInput).action === 'increment') count++;
        return { count, user_id: ctx.identity.userId };
      },
    };
  },
};
