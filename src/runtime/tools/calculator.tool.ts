import { all, create } from 'mathjs';
import { defineTool, ToolConfig } from './define-tool';
import { ToolInputError } from './json-schema';

const MAX_EXPRESSION_LENGTH = 1000;

/**
 * A mathjs instance that can only compute. As mathjs' security notes advise, the functions that parse or
 * evaluate further code, change the instance or build units are replaced; so are those that allocate
 * a matrix of a size given as a number (`zeros(1e5, 1e5)`, the range `1:1e9`), which would exhaust memory.
 */
const math = create(all);
const evaluate = math.evaluate;
const DISABLED = [
  'import',
  'createUnit',
  'evaluate',
  'parse',
  'compile',
  'simplify',
  'derivative',
  'resolve',
  'zeros',
  'ones',
  'identity',
  'range',
  'random',
  'randomInt',
  'pickRandom',
  'resize',
];
math.import(
  Object.fromEntries(
    DISABLED.map((name) => [
      name,
      () => {
        throw new Error(`Function ${name} is disabled`);
      },
    ]),
  ),
  { override: true },
);

/** The value of an arithmetic expression, as text (the last one's when there are several). */
export function calculate(expression: string): string {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new ToolInputError(`The expression is longer than ${MAX_EXPRESSION_LENGTH} characters`);
  }
  let result: unknown = evaluate(expression, {});
  if (math.isResultSet(result)) result = (result as { entries: unknown[] }).entries.at(-1);
  if (typeof result === 'function') throw new ToolInputError(`"${expression}" names a function, not a value`);
  return math.format(result, { precision: 14 });
}

/** `calculator`: evaluates arithmetic (units and matrices too) with a restricted mathjs, never `eval`. */
export const calculatorTool = defineTool<ToolConfig, { expression: string }>({
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
  run: ({ expression }) => {
    try {
      return calculate(expression);
    } catch (err) {
      if (err instanceof ToolInputError) throw err;
      throw new ToolInputError(`Cannot evaluate "${expression}": ${(err as Error).message}`);
    }
  },
});
