import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import type { ValidationIssue } from '../errors/app-error';
import { compiledCheck } from './compiled-check';

type Ctor<T> = new () => T;

/**
 * How deep a JSON document (HTTP body or socket frame) may nest; deeper ones are refused before
 * validation, whose recursion a hostile document could otherwise overflow.
 */
export const MAX_JSON_DEPTH = 64;

const MESSAGES: Record<string, (ctx: Record<string, unknown>) => [string, string]> = {
  isDefined: () => ['missing', 'Field required'],
  isString: () => ['string_type', 'Input should be a valid string'],
  isNotEmpty: () => ['string_too_short', 'String should have at least 1 character'],
  isBoolean: () => ['bool_type', 'Input should be a valid boolean'],
  isInt: () => ['int_type', 'Input should be a valid integer'],
  isNumber: () => ['float_type', 'Input should be a valid number'],
  isArray: () => ['list_type', 'Input should be a valid list'],
  isObject: () => ['dict_type', 'Input should be a valid dictionary'],
  nestedValidation: () => ['model_type', 'Input should be a valid dictionary or object'],
  whitelistValidation: () => ['extra_forbidden', 'Extra inputs are not permitted'],
  arrayMinSize: (c) => ['too_short', `List should have at least ${String(c.min)} item after validation`],
  min: (c) => ['greater_than_equal', `Input should be greater than or equal to ${String(c.min)}`],
  max: (c) => ['less_than_equal', `Input should be less than or equal to ${String(c.max)}`],
};

const TYPE_CHECKS = new Set([
  'isString',
  'isBoolean',
  'isInt',
  'isNumber',
  'isArray',
  'isObject',
  'nestedValidation',
]);

/** Nesting depth of a parsed JSON value, computed without recursion so hostile input cannot overflow. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > max) max = depth;
    if (max > limit) return max;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return max;
}

/** How many issues a 422 lists; the rest are counted in one closing `too_many_errors` issue. */
export const MAX_LISTED_ISSUES = 20;
/** How many characters of an offending input a 422 echoes. */
export const MAX_ECHOED_INPUT = 1000;

/** The input as echoed: itself when small, else the start of its JSON text (found without serialising it all). */
export function echoedInput(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > MAX_ECHOED_INPUT ? `${value.slice(0, MAX_ECHOED_INPUT)}…` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let budget = MAX_ECHOED_INPUT;
  const stack: unknown[] = [value];
  while (stack.length > 0 && budget >= 0) {
    const node = stack.pop();
    if (typeof node === 'string') budget -= node.length + 2;
    else if (node !== null && typeof node === 'object') {
      for (const [key, child] of Object.entries(node)) {
        budget -= key.length + 4;
        stack.push(child);
      }
    } else budget -= 8;
  }
  if (budget >= 0) return value;
  return `${JSON.stringify(value).slice(0, MAX_ECHOED_INPUT)}…`;
}

/** Bounds a 422: the first issues with their inputs cut short, and how many more there were. */
export function cappedIssues(issues: ValidationIssue[], loc: (string | number)[] = []): ValidationIssue[] {
  const listed = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((issue) => ({ ...issue, input: echoedInput(issue.input) }));
  if (issues.length > MAX_LISTED_ISSUES) {
    const more = issues.length - MAX_LISTED_ISSUES;
    listed.push({ type: 'too_many_errors', loc, msg: `${more} more issues not listed`, input: null });
  }
  return listed;
}

function isIndex(key: string, parent: unknown): boolean {
  return Array.isArray(parent) && /^\d+$/.test(key);
}

/** Flattens class-validator's error tree into pydantic-style issues with a `loc` path. */
export function toIssues(errors: ValidationError[], loc: (string | number)[] = []): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const error of errors) {
    const here = [...loc, isIndex(error.property, error.target) ? Number(error.property) : error.property];
    if (error.constraints) {
      const names = Object.keys(error.constraints);
      // Report one problem per field, as pydantic does: missing first, then a wrong type, then the rest.
      const name =
        error.value === undefined && names.includes('isDefined')
          ? 'isDefined'
          : (names.find((n) => TYPE_CHECKS.has(n)) ?? names.find((n) => n !== 'isDefined') ?? names[0]);
      const ctx = (error.contexts?.[name] ?? {}) as Record<string, unknown>;
      const known = MESSAGES[name];
      const [type, msg] = known
        ? known(constraintArgs(error, name, ctx))
        : ['value_error', error.constraints[name]];
      issues.push({ type, loc: here, msg, input: error.value === undefined ? null : error.value });
    }
    if (error.children?.length) issues.push(...toIssues(error.children, here));
  }
  return issues;
}

function constraintArgs(
  error: ValidationError,
  name: string,
  ctx: Record<string, unknown>,
): Record<string, unknown> {
  const text = error.constraints?.[name] ?? '';
  const num = /(-?\d+(?:\.\d+)?)/.exec(text)?.[1];
  return { ...ctx, min: num, max: num };
}

const flat = new WeakMap<Ctor<object>, boolean>();

/** Whether a class validates no nested objects, so its instance can be a plain copy of the input. */
function isFlat(cls: Ctor<object>): boolean {
  let known = flat.get(cls);
  if (known === undefined) {
    const metadata = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
    known = !metadata.some((m) => m.type === 'nestedValidation');
    flat.set(cls, known);
  }
  return known;
}

/**
 * The input's own fields on an instance of `cls`, over its defaults. Neither a `__proto__` key nor a
 * `constructor` key is assigned (as class-transformer assigns neither): the class-validator rules of
 * an instance are found through its `constructor`.
 */
function shallowInstance<T extends object>(cls: Ctor<T>, value: Record<string, unknown>): T {
  const instance = new cls() as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    if (key !== '__proto__' && key !== 'constructor') instance[key] = value[key];
  }
  return instance as T;
}

const isPlainObject = (value: object): value is Record<string, unknown> => {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The value without its objects' `constructor` keys, which class-transformer leaves out of what it
 * builds anyway. Before it does, it takes an object's own `constructor` for the class to build a
 * nested object of which it knows no class, and throws when that is data (`{"maker": {"constructor":
 * "ACME"}}`: class-transformer#1462, closed as invalid), which made such a body a 500. Only the
 * objects on the way to one are copied; the callers hand the input on as it was sent.
 */
function withoutConstructors(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const kept = withoutConstructors(item);
      if (kept !== item) (copy ??= [...value])[i] = kept;
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    if (key === 'constructor') {
      copy ??= { ...value };
      delete copy[key];
      continue;
    }
    const kept = withoutConstructors(value[key]);
    // Defined, not assigned: a `__proto__` key stays a key.
    if (kept !== value[key])
      Object.defineProperty((copy ??= { ...value }), key, { value: kept, enumerable: true });
  }
  return copy ?? value;
}

/**
 * Validates a plain value against a class-validator class. Returns the typed instance or the issues.
 * The caller keeps the original value where extra fields must pass through untouched.
 */
export function validatePlain<T extends object>(
  cls: Ctor<T>,
  value: unknown,
  loc: (string | number)[] = [],
  options: { forbidUnknown?: boolean } = {},
): { ok: true; value: T } | { ok: false; issues: ValidationIssue[] } {
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      issues: [
        value === undefined
          ? { type: 'missing', loc, msg: 'Field required', input: null }
          : {
              type: 'model_attributes_type',
              loc,
              msg: 'Input should be a valid dictionary or object to extract fields from',
              input: value,
            },
      ],
    };
  }
  const lenient = options.forbidUnknown !== true;
  const instance =
    lenient && isFlat(cls)
      ? shallowInstance(cls, value as Record<string, unknown>)
      : plainToInstance(cls, withoutConstructors(value), { enableImplicitConversion: false });
  // The common case, a body that fits, decided by the class's compiled rules; anything else is
  // validated (and described) by class-validator.
  if (lenient && compiledCheck(cls)?.(instance as Record<string, unknown>) === true)
    return { ok: true, value: instance };
  const errors = validateSync(instance, {
    forbidUnknownValues: false,
    whitelist: options.forbidUnknown === true,
    forbidNonWhitelisted: options.forbidUnknown === true,
    validationError: { target: true, value: true },
  });
  if (errors.length > 0) return { ok: false, issues: cappedIssues(toIssues(errors, loc), loc) };
  return { ok: true, value: instance };
}
