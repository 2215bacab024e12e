import type { Type } from '@nestjs/common';
import { getSchemaPath, type OpenAPIObject, type ParameterObject, type SchemaObject } from '@nestjs/swagger';

/** What the OpenAPI of one mount of the generate routes takes from config. */
export interface GenerateMountDocs {
  path: string;
  method: 'get' | 'post' | 'put' | 'delete';
  /** The input's DTO: the JSON body, or (`query`) the query parameters. */
  input: Type;
  from: 'body' | 'query';
  /** An endpoint's operations: their ids (`Endpoint0Controller_generate`) and its description. */
  endpoint?: { name: string; summary: string };
}

const OPERATIONS: [suffix: string, handler: string][] = [
  ['', 'generate'],
  ['/stream', 'stream'],
  ['/full', 'full'],
];

/** The keys Swagger moves into a query parameter's `schema` (its `getSchemaOptionsKeys`, and `allOf`). */
const SCHEMA_KEYS = new Set([
  ...['properties', 'patternProperties', 'additionalProperties', 'minimum', 'maximum', 'maxProperties'],
  ...['minItems', 'minProperties', 'maxItems', 'minLength', 'maxLength', 'exclusiveMaximum'],
  ...['exclusiveMinimum', 'uniqueItems', 'multipleOf', 'title', 'format', 'pattern', 'nullable'],
  ...['default', 'example', 'oneOf', 'anyOf', 'type', 'items', 'allOf'],
]);

/** A model's properties as query parameters, the way Swagger spreads `@ApiQuery({ type })`. */
function queryParameters(model: SchemaObject): ParameterObject[] {
  const required = new Set(model.required ?? []);
  return Object.entries(model.properties ?? {}).map(([name, property]) => {
    const parameter: Record<string, unknown> = { name, in: 'query', required: required.has(name) };
    const schema: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(property)) {
      if (SCHEMA_KEYS.has(key)) schema[key] = value;
      else if (key !== 'enum' && key !== '$ref') parameter[key] = value;
    }
    const { enum: values, $ref } = property as { enum?: unknown; $ref?: string };
    // With no schema keys Swagger keeps the enum or the reference; beside a type it drops them.
    if (Object.keys(schema).length === 0) Object.assign(schema, values && { enum: values }, $ref && { $ref });
    if (Object.keys(schema).length > 0) parameter.schema = schema;
    return parameter as unknown as ParameterObject;
  });
}

/**
 * The part of the generate routes' OpenAPI that comes from config. Their controllers are ordinary
 * classes, served at paths from config: Swagger reads the responses, summaries and tags from them, and
 * this fills in which input each mount takes (the workflow's, an endpoint function's) and each
 * endpoint's summary and operation ids.
 */
export class GenerateDocs {
  constructor(private readonly mounts: GenerateMountDocs[]) {}

  /** The input DTOs, for `SwaggerModule.createDocument`'s `extraModels`. */
  get models(): Type[] {
    return [...new Set(this.mounts.map((m) => m.input))];
  }

  amend(document: OpenAPIObject): void {
    const schemas = document.components?.schemas ?? {};
    for (const mount of this.mounts) {
      const ref = getSchemaPath(mount.input);
      for (const [suffix, handler] of OPERATIONS) {
        const operation = document.paths[`${mount.path}${suffix}`]?.[mount.method];
        if (!operation) throw new Error(`OpenAPI has no ${mount.method} ${mount.path}${suffix}`);
        if (mount.from === 'body') {
          operation.requestBody = {
            required: true,
            content: { 'application/json': { schema: { $ref: ref } } },
          };
        } else {
          const model = schemas[ref.slice('#/components/schemas/'.length)] as SchemaObject;
          operation.parameters = [...(operation.parameters ?? []), ...queryParameters(model)];
        }
        if (mount.endpoint) {
          operation.operationId = `${mount.endpoint.name}_${handler}`;
          if (mount.endpoint.summary) operation.summary = mount.endpoint.summary;
        }
      }
    }
    // A model only read from the query is spread into parameters, not listed (unless referenced).
    const text = JSON.stringify(document);
    for (const input of this.models) {
      const ref = getSchemaPath(input);
      if (!text.includes(`"${ref}"`)) delete schemas[ref.slice('#/components/schemas/'.length)];
    }
  }
}
