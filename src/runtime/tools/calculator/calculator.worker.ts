import type { MathNode } from 'mathjs';
// The single-file build: the package's CommonJS entry loads ~1,000 files, which took 1–2.5 s of each
// worker start here (the first expression, and the next after one was stopped); this one takes ~0.2 s.
import { all, create } from 'mathjs/lib/browser/math.js';
import { serveTasks } from '../../../core/workers/worker-protocol';

/**
 * The calculator's evaluator, run only inside a worker thread (see calculator-sandbox.ts): mathjs is
 * loaded here and nowhere else, and whatever an expression does to memory or time stays in the worker.
 */

/** Past this many elements a matrix result is refused (a bigger one is no answer a model can read). */
export const MAX_ELEMENTS = 10_000;
const MAX_RESULT_CHARS = 10_000;

/**
 * The names an expression may use. Anything else the mathjs namespace holds is refused before the
 * expression runs: `config` and `import` change the instance, `evaluate`/`parse` run further code, and
 * `kron`, `diag`, `matrixFromFunction`, `zeros`, `ones`, `identity`, `resize`, `concat`… build matrices
 * whose size is a number in the expression. Names outside the namespace (units, the expression's own
 * variables and functions) are left to mathjs.
 */
const ALLOWED = new Set(
  `add subtract multiply divide mod pow sqrt cbrt nthRoot abs sign exp expm1 log log10 log2 log1p round
  floor ceil fix unaryMinus unaryPlus gcd lcm hypot norm square cube dotMultiply dotDivide dotPow
  sin cos tan sec csc cot asin acos atan atan2 acot asec acsc sinh cosh tanh asinh acosh atanh
  min max mean median mode sum prod std variance mad
  factorial combinations permutations gamma isPrime isInteger isNegative isPositive isZero isNaN
  matrix det inv transpose ctranspose dot cross size trace sort flatten subset
  to unit number bignumber fraction complex re im conj arg
  equal unequal smaller smallerEq larger largerEq compare and or not xor
  bitAnd bitOr bitXor bitNot leftShift rightArithShift rightLogShift
  pi e tau phi i Infinity NaN null true false E PI LN2 LN10 LOG2E LOG10E SQRT1_2 SQRT2`.split(/\s+/),
);

const math = create(all);
const { parse, format, isResultSet, isMatrix } = math;

// `a:b` and range() stay, within the size limit (`transform` is the expression syntax's inclusive form).
type Range = ((...args: unknown[]) => unknown) & { transform: (...args: unknown[]) => unknown };
const range = Object.assign(math.range, {
  transform: (math.expression as unknown as { transform: { range: Range } }).transform.range,
}) as unknown as Range;
function checkedRange(args: unknown[]): void {
  const [start, end, step = 1] = args.map(Number);
  const count = Math.abs((end - start) / step);
  if (typeof args[0] === 'string' || !Number.isFinite(count) || count > MAX_ELEMENTS) {
    throw new Error(`ranges are limited to ${MAX_ELEMENTS} elements`);
  }
}
const limitedRange = Object.assign(
  (...args: unknown[]) => {
    checkedRange(args);
    return range(...args);
  },
  {
    transform: (...args: unknown[]) => {
      checkedRange(args);
      return range.transform(...args);
    },
  },
);
math.import({ range: limitedRange }, { override: true });

function refusedName(node: MathNode): string | undefined {
  const name = (node as { name?: unknown }).name;
  if (node.type !== 'SymbolNode' && node.type !== 'FunctionNode') return undefined;
  if (typeof name !== 'string' || !(name in math) || ALLOWED.has(name)) return undefined;
  return name;
}

function elementCount(value: unknown): number {
  if (isMatrix(value)) return (value.size() as number[]).reduce((a, b) => a * b, 1);
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + Math.max(1, elementCount(v)), 0);
  return 0;
}

/** The value of the expression as text (the last statement's), or an Error saying why not. */
export function evaluateExpression(expression: string): string {
  const tree = parse(expression);
  const refused = new Set<string>();
  tree.traverse((node) => {
    const name = refusedName(node);
    if (name) refused.add(name);
  });
  if (refused.size > 0) throw new Error(`${[...refused].join(', ')} cannot be used in the calculator`);
  let result: unknown = tree.compile().evaluate({});
  if (isResultSet(result)) result = (result as { entries: unknown[] }).entries.at(-1);
  if (typeof result === 'function') throw new Error('the expression names a function, not a value');
  if (elementCount(result) > MAX_ELEMENTS)
    throw new Error(`matrices are limited to ${MAX_ELEMENTS} elements`);
  const text = format(result, { precision: 14 });
  if (text.length > MAX_RESULT_CHARS)
    throw new Error(`the result is longer than ${MAX_RESULT_CHARS} characters`);
  return text;
}

serveTasks(evaluateExpression);
