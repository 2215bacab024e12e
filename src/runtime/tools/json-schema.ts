import type { ErrorObject, ValidateFunction } from 'ajv';
import { jsonDepth, MAX_JSON_DEPTH } from '../../core/validation/validation-issues';
import { schemaCompiler } from './schema-compiler';

/** A JSON Schema (the `parameters` of an OpenAI function tool). */
export type JsonSchema = Record<string, unknown>;

/** Arguments that do not fit a tool's schema; the message says what is wrong, for the model to fix. */
export class ToolInputError extends Error {
  /** About the arguments the model chose (see isExposed). */
  readonly expose = true;

  constructor(message: string) {
    super(message);
    this.name = 'ToolInputError';
  }
}

const compiled = new WeakMap<JsonSchema, ValidateFunction>();

function validatorFor(schema: JsonSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = schemaCompiler().compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function describe(error: ErrorObject): string {
  const where = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const extra =
    error.keyword === 'additionalProperties'
      ? ` ("${String((error.params as { additionalProperty: string }).additionalProperty)}")`
      : error.keyword === 'enum'
        ? ` (${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
        : '';
  return `${where || 'arguments'} ${error.message ?? 'is invalid'}${extra}`;
}

/** Whether a schema compiles (a config's hand-written schema is checked at start-up). */
export function schemaProblem(schema: JsonSchema): string | undefined {
  try {
    validatorFor(schema);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The arguments when they fit the schema; a ToolInputError naming every mismatch otherwise. */
export function checkedArguments<A>(schema: JsonSchema, args: unknown): A {
  const validate = validatorFor(schema);
  if (!validate(args)) {
    throw new ToolInputError(`Invalid arguments: ${(validate.errors ?? []).map(describe).join('; ')}`);
  }
  return args as A;
}

/** JSON arguments as a model writes them; `{}` for none. */
export function parseArguments(text: string): unknown {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    throw new ToolInputError(`Arguments are not valid JSON: ${quotedArguments(text)}`);
  }
  return shallowEnough(parsed);
}

/** How much of arguments that cannot be read the model is shown again (it wrote them). */
const QUOTED_CHARS = 200;

function quotedArguments(text: string): string {
  return text.length <= QUOTED_CHARS ? text : `${text.slice(0, QUOTED_CHARS)}… (${text.length} characters)`;
}

/**
 * Parsed arguments no deeper than a request body may be: a model's 10,000-level value went on to
 * recursive copies and serialisations of its step, and came back as "Maximum call stack size exceeded".
 */
function shallowEnough(parsed: unknown): unknown {
  if (jsonDepth(parsed) > MAX_JSON_DEPTH) {
    throw new ToolInputError(`Arguments are nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return parsed;
}

/**
 * Arguments from free text (a ReAct `Action Input:`, a chat message): a JSON object as it is (single
 * quotes tolerated), `None` or nothing as `{}`, and anything else as the value of the schema's only property.
 */
export function argumentsFromText(text: string, schema: JsonSchema): unknown {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed === 'None') return {};
  for (const candidate of [trimmed, trimmed.replace(/'/g, '"')]) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(candidate) as unknown;
    } catch {
      continue; // not JSON: try the next reading
    }
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return shallowEnough(parsed);
  }
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  if (properties.length === 1) return { [properties[0]]: trimmed.replace(/^"(.*)"$/s, '$1') };
  throw new ToolInputError(
    `Arguments must be a JSON object with ${properties.map((p) => `"${p}"`).join(', ') || 'no fields'}`,
  );
}
