import { IsDefined, IsIn, IsInt, IsNumber, IsObject, IsString, Matches, Min } from 'class-validator';
import { Optional } from '../../core/validation/optional.decorator';
import { renderTemplate, templateNames } from '../template';
import type { WorkflowContext } from '../workflow-context';
import { defineTool, ToolConfig } from './define-tool';
import { schemaProblem, type JsonSchema } from './json-schema';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

export class HttpRequestConfig extends ToolConfig {
  /** `{{name}}` placeholders in the path or query become the tool's string arguments (URL-encoded). */
  @IsDefined()
  @IsString()
  @Matches(/^https?:\/\/[^/{}?#]+(?:[/?#].*)?$/, {
    message: 'url must be an http(s) URL whose host has no {{placeholder}}',
  })
  url!: string;
  @Optional() @IsIn(METHODS) method = 'GET';
  /** Sent with every call (values may use `${ENV_VAR}`). */
  @Optional() @IsObject() headers: Record<string, string> = {};
  /** An `authentication:` provider: the call carries the user's bearer token (they authorize once). */
  @Optional() @IsString() auth_provider?: string;
  /** The JSON Schema of the body the model sends (POST, PUT, PATCH); any JSON object if left out. */
  @Optional() @IsObject() body_schema?: JsonSchema;
  /** The response is cut at this many bytes (the model reads `truncated: true`). */
  @Optional() @IsInt() @Min(1) max_response_bytes = 65_536;
  @Optional() @IsNumber() @Min(0.001) timeout_seconds = 30;
}

/** What the model reads: the status and the body (JSON when it parses). */
export interface HttpToolResult {
  status: number;
  body: unknown;
  truncated?: true;
}

function parametersOf(config: HttpRequestConfig): JsonSchema {
  const names = [...new Set(templateNames(config.url))];
  const properties: Record<string, unknown> = Object.fromEntries(names.map((n) => [n, { type: 'string' }]));
  const required = [...names];
  if (WITH_BODY.has(config.method)) {
    properties.body = config.body_schema ?? { type: 'object', description: 'The JSON body to send' };
    required.push('body');
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

async function readLimited(response: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  const reader = response.body?.getReader();
  if (!reader) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return { text: Buffer.concat(chunks).subarray(0, limit).toString('utf8'), truncated: true };
    }
  }
}

async function call(
  config: HttpRequestConfig,
  args: Record<string, unknown>,
  ctx: WorkflowContext,
): Promise<HttpToolResult> {
  const encoded = Object.fromEntries(
    templateNames(config.url).map((n) => [n, encodeURIComponent(String(args[n]))]),
  );
  const url = renderTemplate(config.url, encoded);
  const headers: Record<string, string> = { ...config.headers };
  if (config.auth_provider) Object.assign(headers, (await ctx.authenticate(config.auth_provider)).headers);
  let body: string | undefined;
  if (WITH_BODY.has(config.method)) {
    body = JSON.stringify(args.body);
    headers['Content-Type'] = 'application/json';
  }
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(config.timeout_seconds * 1000)]);
  let response: Response;
  try {
    response = await fetch(url, { method: config.method, headers, body, signal });
  } catch (err) {
    ctx.signal.throwIfAborted();
    const error = err as Error & { cause?: Error };
    const why =
      error.name === 'TimeoutError'
        ? `no answer within ${config.timeout_seconds}s`
        : (error.cause?.message ?? error.message);
    throw new Error(`${config.method} ${url} failed: ${why}`, { cause: err });
  }
  const { text, truncated } = await readLimited(response, config.max_response_bytes);
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // not JSON: the model reads the text
  }
  return { status: response.status, body: parsed, ...(truncated ? { truncated: true as const } : {}) };
}

/** `http_request`: one HTTP call to a configured URL; the model fills the URL's placeholders (and body). */
export const httpRequestTool = defineTool<HttpRequestConfig>({
  type: 'http_request',
  description: 'Calls an HTTP API and returns the status and the response body.',
  parameters: parametersOf,
  config: HttpRequestConfig,
  check: (config) => {
    const problem = config.body_schema ? schemaProblem(config.body_schema) : undefined;
    return problem ? [{ loc: ['body_schema'], message: `not a valid JSON Schema: ${problem}` }] : [];
  },
  references: (config) =>
    config.auth_provider
      ? [{ loc: ['auth_provider'], section: 'authentication', name: config.auth_provider }]
      : [],
  run: (args, ctx, config) => call(config, args, ctx),
});
