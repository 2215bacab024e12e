import { IsArray, IsIn, IsString } from 'class-validator';
import { IfPresent } from '../../../core/validation/if-present.decorator';
import {
  GROUP_SEPARATOR,
  type BuildContext,
  type BuiltFunction,
  type FunctionGroupType,
} from '../../function-type';
import { FUNCTION_BASE_FIELDS } from '../../nat-fields';
import { defineTool, ToolConfig } from '../define-tool';
import { ToolInputError, type JsonSchema } from '../json-schema';

type Operation = (numbers: number[]) => number | string;

const atLeastTwo =
  (what: string, op: Operation): Operation =>
  (numbers) => {
    if (numbers.length < 2)
      throw new ToolInputError(`This tool only supports ${what} between two or more numbers.`);
    return op(numbers);
  };
const exactlyTwo =
  (what: string, op: (a: number, b: number) => number | string): Operation =>
  (numbers) => {
    if (numbers.length !== 2)
      throw new ToolInputError(`This tool only supports ${what} between two numbers.`);
    return op(numbers[0], numbers[1]);
  };

/** NeMo Agent Toolkit's calculator group: its tool names, descriptions and argument. */
const OPERATIONS: Record<string, { description: string; run: Operation }> = {
  add: {
    description: 'Add two or more numbers together.',
    run: atLeastTwo('addition', (n) => n.reduce((a, b) => a + b, 0)),
  },
  subtract: {
    description: 'Subtract one number from another.',
    run: exactlyTwo('subtraction', (a, b) => a - b),
  },
  multiply: {
    description: 'Multiply two or more numbers together.',
    run: atLeastTwo('multiplication', (n) => n.reduce((a, b) => a * b, 1)),
  },
  divide: {
    description: 'Divide one number by another.',
    run: exactlyTwo('division', (a, b) => {
      if (b === 0) throw new ToolInputError('Cannot divide by zero.');
      return a / b;
    }),
  },
  compare: {
    description: 'Compare two numbers.',
    run: exactlyTwo('comparison', (a, b) =>
      a > b ? `${a} is greater than ${b}` : a < b ? `${a} is less than ${b}` : `${a} is equal to ${b}`,
    ),
  },
};
const NAMES = Object.keys(OPERATIONS);

const NUMBERS: JsonSchema = {
  type: 'object',
  properties: { numbers: { type: 'array', items: { type: 'number' }, description: 'The numbers' } },
  required: ['numbers'],
  additionalProperties: false,
};

export class CalculatorGroupConfig {
  @IsString() _type!: string;
  /** The tools offered (NAT's default: all five). */
  @IfPresent() @IsArray() @IsIn(NAMES, { each: true }) include: string[] = [...NAMES];
  @IfPresent() @IsArray() @IsIn(NAMES, { each: true }) exclude: string[] = [];
}

/**
 * `function_groups: {calculator: {_type: calculator}}`: NeMo Agent Toolkit's example calculator group,
 * tools `calculator__add`, `__subtract`, `__multiply`, `__divide`, `__compare`, each taking `numbers`.
 */
export const calculatorGroupType: FunctionGroupType<CalculatorGroupConfig> = {
  type: 'calculator',
  description: 'Arithmetic on a list of numbers (NeMo Agent Toolkit calculator group)',
  config: CalculatorGroupConfig,
  natFields: { ignored: { middleware: FUNCTION_BASE_FIELDS.middleware } },
  build(config, context: BuildContext) {
    const tools = new Map<string, BuiltFunction>();
    for (const name of config.include.filter((n) => !config.exclude.includes(n))) {
      const full = `${context.name}${GROUP_SEPARATOR}${name}`;
      const { description, run } = OPERATIONS[name];
      const tool = defineTool<ToolConfig, { numbers: number[] }>({
        type: full,
        description,
        parameters: NUMBERS,
        run: ({ numbers }) => run(numbers),
      });
      tools.set(full, tool.build({ _type: full }, context));
    }
    return {
      type: 'calculator',
      connect: () => Promise.resolve(),
      functions: () => tools,
      close: () => Promise.resolve(),
    };
  },
};
