import { IsIn } from 'class-validator';
import { Optional } from '../core/validation/optional.decorator';

/** Where the engine keeps what a second process would need to see. */
export const EXECUTION_STORES = ['memory'] as const;
export type ExecutionStoreDriver = (typeof EXECUTION_STORES)[number];

/** `general.executions`: the adapters behind the engine's ports. */
export class ExecutionsConfig {
  /** Execution records, event logs, interaction wake-ups and pending OAuth flows (`memory`: one process). */
  @Optional()
  @IsIn(EXECUTION_STORES, { message: `store must be one of: ${EXECUTION_STORES.join(', ')}` })
  store: ExecutionStoreDriver = 'memory';
}
