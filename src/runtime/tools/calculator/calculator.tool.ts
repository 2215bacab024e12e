import { IsInt, IsNumber, Max, Min } from 'class-validator';
import { callerKey } from '../../../core/identity/caller-key';
import { IfPresent } from '../../../core/validation/if-present.decorator';
import type { SandboxConfig } from '../../../core/workers/sandbox.config';
import { defineTool, ToolConfig } from '../define-tool';
import { ToolInputError } from '../json-schema';
import { sharedSandbox } from './calculator-sandbox';

const MAX_EXPRESSION_LENGTH = 1000;

export class CalculatorConfig extends ToolConfig {
  /** An expression still running after this long is stopped (its worker is replaced). */
  @IfPresent() @IsNumber() @Min(0.01) @Max(60) timeout_seconds = 2;
  /** The heap of the worker that evaluates expressions, in MiB (mathjs itself takes about 40). */
  @IfPresent() @IsInt() @Min(64) @Max(4096) max_memory_mb = 128;
}

/** Whose turn an expression takes in the shared workers, and their size (`general.sandbox`). */
export interface CalculationOptions {
  caller?: string;
  pool?: SandboxConfig;
}

/** The value of an arithmetic expression, as text (the last one's when there are several). */
export async function calculate(
  expression: string,
  config: CalculatorConfig = new CalculatorConfig(),
  options: CalculationOptions = {},
): Promise<string> {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ToolInputError(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  try {
    const sandbox = sharedSandbox(config.max_memory_mb, options.pool);
    return await sandbox.evaluate(expression, config.timeout_seconds * 1000, options.caller);
  } catch (err) {
    throw new ToolInputError(`Cannot evaluate "${expression}": ${(err as Error).message}`);
  }
}

/**
 * `calculator`: arithmetic (units and matrices too) with mathjs, never `eval`. Expressions run in a
 * worker thread with an allow-list of functions and limits on matrix size, time and memory.
 */
export const calculatorTool = defineTool<CalculatorConfig, { expression: string }>({
  type: 'calculator',
  description:
    'Evaluates an arithmetic expression and returns its value, e.g. "(3 + 4) * 2", "sqrt(16) / 2", "17 % 5", ' +
    '"2 km to m". Use it for any calculation instead of computing in your head.',
  parameters: {
    type: 'object',
    properties: {
      expression: { type: 'string', description: 'The expression to evaluate, e.g. "12 * (3 + 4)"' },
    },
    required: ['expression'],
    additionalProperties: false,
  },
  config: CalculatorConfig,
  run: ({ expression }, ctx, config, built) =>
    calculate(expression, config, {
      caller: callerKey(ctx.identity, ctx.request.clientAddress),
      pool: built.sandbox,
    }),
});
