import { IsDefined, IsIn, IsInt, IsNumber, IsObject, IsString, Matches, Min } from 'class-validator';
import { IfPresent } from '../../core/validation/if-present.decorator';
import type { OutboundPolicy } from '../../core/outbound/outbound-policy';
import { outboundRequest } from '../../core/outbound/outbound-request';
import { templateNames } from '../template';
import type { WorkflowContext } from '../workflow-context';
import { defineTool, ToolConfig } from './define-tool';
import { schemaProblem, type JsonSchema } from './json-schema';
import { fillUrl } from './url-template';

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
  @IfPresent() @IsIn(METHODS) method = 'GET';
  /** Sent with every call (values may use `${ENV_VAR}`). */
  @IfPresent() @IsObject() headers: Record<string, string> = {};
  /** An `authentication:` provider: the call carries the user's bearer token (they authorize once). */
  @IfPresent() @IsString() auth_provider?: string;
  /** The JSON Schema of the body the model sends (POST, PUT, PATCH); any JSON object if left out. */
  @IfPresent() @IsObject() body_schema?: JsonSchema;
  /** The response is cut at this many bytes (the model reads `truncated: true`). */
  @IfPresent() @IsInt() @Min(1) max_response_bytes = 65_536;
  @IfPresent() @IsNumber() @Min(0.001) timeout_seconds = 30;
}

/** What the model reads: the status and the body (JSON when it parses). */
export interface HttpToolResult {
  status: number;
  body: unknown;
  truncated?: true;
  /** A redirect to another origin, not followed: the configured headers stay with the configured host. */
  redirect_not_followed?: string;
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

async function call(
  config: HttpRequestConfig,
  args: Record<string, unknown>,
  ctx: WorkflowContext,
  outbound: OutboundPolicy,
): Promise<HttpToolResult> {
  const url = fillUrl(config.url, args);
  const headers: Record<string, string> = { ...config.headers };
  if (config.auth_provider) Object.assign(headers, (await ctx.authenticate(config.auth_provider)).headers);
  let body: string | undefined;
  if (WITH_BODY.has(config.method)) {
    body = JSON.stringify(args.body);
    headers['Content-Type'] = 'application/json';
  }
  const response = await outboundRequest(outbound, url, {
    method: config.method,
    headers,
    body,
    signal: ctx.signal,
    maxBytes: Math.min(config.max_response_bytes, outbound.settings.max_response_bytes),
    timeoutSeconds: config.timeout_seconds,
  });
  const text = response.body.toString('utf8');
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    // not JSON: the model reads the text
  }
  return {
    status: response.status,
    body: parsed,
    ...(response.truncated ? { truncated: true as const } : {}),
    ...(response.redirectNotFollowed ? { redirect_not_followed: response.redirectNotFollowed } : {}),
  };
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
      ? [
          {
            loc: ['auth_provider'],
            section: 'authentication',
            name: config.auth_provider,
            types: ['oauth2_auth_code_flow'],
          },
        ]
      : [],
  run: (args, ctx, config, built) => call(config, args, ctx, built.outbound),
});
