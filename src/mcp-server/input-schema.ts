import { getMetadataStorage, ValidationTypes } from 'class-validator';
import type { BuiltFunction, Ctor } from '../runtime/function-type';
import type { JsonSchema } from '../runtime/tools/json-schema';

export type ObjectSchema = JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };

/** `nat mcp serve`'s simplified interface for a chat workflow: one query string. */
export const CHAT_QUERY_SCHEMA: ObjectSchema = {
  type: 'object',
  properties: { query: { type: 'string', description: 'User query string' } },
  required: ['query'],
  title: 'ChatRequestQuery',
};

/** class-validator rules whose JSON Schema type is plain; the rest leave a property untyped. */
const TYPES: Record<string, JsonSchema> = {
  isString: { type: 'string' },
  isBoolean: { type: 'boolean' },
  isInt: { type: 'integer' },
  isNumber: { type: 'number' },
  isArray: { type: 'array' },
  isObject: { type: 'object' },
};

/**
 * A tool's input schema as `nat mcp serve` gives it: the chat query for chat functions, a tool's own
 * JSON Schema, or the fields of the function's input class (from its class-validator rules: a field
 * is required when it must be defined unconditionally).
 */
export function inputSchemaOf(fn: BuiltFunction): ObjectSchema {
  if (fn.parameters && fn.parameters.type === 'object') return fn.parameters as ObjectSchema;
  if (fn.input.kind === 'chat') return CHAT_QUERY_SCHEMA;
  return classSchema(fn.input.dto);
}

function classSchema(cls: Ctor): ObjectSchema {
  const rules = getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
  const properties: Record<string, JsonSchema> = {};
  const required = new Set<string>();
  const conditional = new Set<string>();
  for (const rule of rules) {
    const name = rule.propertyName;
    const property = (properties[name] ??= {});
    if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION) conditional.add(name);
    else if (rule.type === ValidationTypes.IS_DEFINED) required.add(name);
    else if (rule.name === 'isIn') property.enum = rule.constraints[0] as unknown[];
    else if (rule.name !== undefined && TYPES[rule.name]) Object.assign(property, TYPES[rule.name]);
  }
  const schema: ObjectSchema = { type: 'object', properties, title: cls.name };
  const needed = [...required].filter((name) => !conditional.has(name));
  if (needed.length > 0) schema.required = needed;
  return schema;
}
