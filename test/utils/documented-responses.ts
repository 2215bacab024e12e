import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { OpenAPIV3 } from 'openapi-types';

/** One answer the server gave, as a client saw it. */
export interface Answer {
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
}

const escape = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Judges answers the way a client generated from `/openapi.json` reads them: the route's operation
 * must document the answer's status (no `default` to fall back on), its content type, and, for JSON,
 * a schema the body fits. The whole document is one Ajv schema, so `$ref`s resolve as written.
 */
export class DocumentedResponses {
  private readonly ajv = new Ajv({ strict: false, allErrors: true });
  private readonly templates: { path: string; pattern: RegExp; literal: number }[];

  constructor(private readonly doc: OpenAPIV3.Document) {
    addFormats(this.ajv);
    this.ajv.addSchema({ ...doc, $id: 'doc' });
    // A literal segment beats a parameter: /evaluate/job/last is not /evaluate/job/{job_id}.
    this.templates = Object.keys(doc.paths)
      .map((path) => ({
        path,
        pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        literal: path.replace(/\{[^}]+\}/g, '').length,
      }))
      .sort((a, b) => b.literal - a.literal);
  }

  static async of(baseUrl: string): Promise<DocumentedResponses> {
    const res = await fetch(`${baseUrl}/openapi.json`);
    return new DocumentedResponses((await res.json()) as OpenAPIV3.Document);
  }

  /** What a generated client would trip on in this answer; undefined when it fits the document. */
  problemWith(answer: Answer): string | undefined {
    const method = answer.method.toLowerCase();
    const at = `${answer.method} ${answer.path} → ${answer.status}`;
    const template = this.templates.find(
      (t) => t.pattern.test(answer.path) && this.doc.paths[t.path]?.[method as OpenAPIV3.HttpMethods],
    )?.path;
    if (!template) return `${at}: no operation documented`;
    const operation = this.doc.paths[template]?.[
      method as OpenAPIV3.HttpMethods
    ] as OpenAPIV3.OperationObject;
    const response = operation.responses[String(answer.status)] as OpenAPIV3.ResponseObject | undefined;
    if (!response) {
      return `${at}: status not documented (documented: ${Object.keys(operation.responses).join(', ')})`;
    }
    if (answer.text === '') return undefined;
    const mediaType = answer.contentType.split(';')[0].trim();
    const content = response.content ?? {};
    if (!content[mediaType]) {
      return `${at}: ${mediaType || 'a body with no content type'} not documented (documented: ${Object.keys(content).join(', ') || 'no content'})`;
    }
    if (mediaType !== 'application/json') return undefined;
    if (!content[mediaType].schema) return `${at}: JSON body but no schema documented`;
    const pointer = `doc#/paths/${escape(template)}/${method}/responses/${answer.status}/content/application~1json/schema`;
    const validate: ValidateFunction = this.ajv.getSchema(pointer) ?? this.ajv.compile({ $ref: pointer });
    if (validate(JSON.parse(answer.text))) return undefined;
    const why = this.ajv.errorsText(validate.errors, { separator: ' | ' });
    return `${at}: ${why}\n    body: ${answer.text.slice(0, 300)}`;
  }
}

/**
 * A client for the catalogue: sends each request, reads the whole answer, and keeps the problems the
 * document has with it. Streams are read to their end, so each request ends before the next.
 */
export class CheckedClient {
  readonly problems: string[] = [];
  readonly seen: string[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly documented: DocumentedResponses,
    private readonly headers: Record<string, string> = {},
  ) {}

  async send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; json: () => Record<string, unknown>; headers: Headers }> {
    const raw = typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        ...(raw === undefined ? {} : { 'content-type': 'application/json' }),
        ...this.headers,
        ...headers,
      },
      body: raw,
    });
    const text = await res.text();
    const answer = {
      method,
      path: new URL(path, this.baseUrl).pathname,
      status: res.status,
      contentType: res.headers.get('content-type') ?? '',
      text,
    };
    this.seen.push(`${method} ${answer.path} ${res.status}`);
    const problem = this.documented.problemWith(answer);
    if (problem) this.problems.push(problem);
    return {
      status: res.status,
      json: () => JSON.parse(text) as Record<string, unknown>,
      headers: res.headers,
    };
  }
}
