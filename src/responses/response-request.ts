import { randomUUID } from 'node:crypto';
import { AppError, type ValidationIssue } from '../core/errors/app-error';
import type { ContentPart } from '../runtime/chat-input';
import { isJsonObject } from '../core/validation/json-object';

/** An input item as stored and listed (`GET /v1/responses/{id}/input_items`): each has an id. */
export type InputItem =
  | {
      type: 'message';
      id: string;
      role: 'user' | 'system' | 'developer' | 'assistant';
      status: 'completed';
      content: ContentPart[];
    }
  | { type: 'function_call_output'; id: string; call_id: string; output: string; status: 'completed' };

/** A client's function tool (`{type: "function", name, …}`), as the workflow is handed it. */
export interface FunctionTool {
  type: 'function';
  name: string;
  description: string | null;
  parameters: Record<string, unknown> | null;
  strict: boolean | null;
}

/** A `POST /v1/responses` body as this face reads it; members it does not use are ignored. */
export interface ResponseRequest {
  input: InputItem[];
  instructions: string | null;
  model?: string;
  stream: boolean;
  store: boolean;
  background: boolean;
  previous_response_id: string | null;
  metadata: Record<string, string>;
  user: string | null;
  /** The client's tools as sent (echoed); `functionTools` are the function tools among them. */
  tools: unknown[];
  functionTools: FunctionTool[];
  tool_choice: unknown;
  temperature: number | null;
  top_p: number | null;
}

const ROLES = ['user', 'system', 'developer', 'assistant'];
const TEXT_PARTS = ['input_text', 'output_text', 'text'];
const MAX_METADATA = 16;

class Issues {
  readonly list: ValidationIssue[] = [];

  add(loc: (string | number)[], msg: string, input: unknown, type = 'invalid_type'): void {
    this.list.push({ type, loc: ['body', ...loc], msg, input });
  }

  optional<T>(body: Record<string, unknown>, key: string, kind: string, fallback: T): T {
    const value = body[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== kind) {
      this.add([key], `Input should be a valid ${kind}`, value);
      return fallback;
    }
    return value as T;
  }
}

function contentOf(content: unknown, loc: (string | number)[], issues: Issues): ContentPart[] {
  if (typeof content === 'string') return [{ type: 'input_text', text: content }];
  if (!Array.isArray(content)) {
    issues.add(loc, 'Input should be a string or a list of content parts', content);
    return [];
  }
  content.forEach((part, i) => {
    if (!isJsonObject(part) || typeof part.type !== 'string') {
      issues.add([...loc, i], 'Input should be a content part with a type', part);
    } else if (TEXT_PARTS.includes(part.type) && typeof part.text !== 'string') {
      issues.add([...loc, i, 'text'], 'Input should be a valid string', part.text);
    }
  });
  return content as ContentPart[];
}

function itemOf(raw: unknown, i: number, issues: Issues): InputItem | undefined {
  const loc = ['input', i];
  if (!isJsonObject(raw)) return void issues.add(loc, 'Input should be an input item object', raw);
  const type = raw.type ?? 'message';
  if (type === 'message') {
    if (typeof raw.role !== 'string' || !ROLES.includes(raw.role)) {
      return void issues.add([...loc, 'role'], `Input should be one of ${ROLES.join(', ')}`, raw.role);
    }
    const content = contentOf(raw.content, [...loc, 'content'], issues);
    const role = raw.role as 'user';
    return {
      type: 'message',
      id: `msg_${randomUUID().replace(/-/g, '')}`,
      role,
      status: 'completed',
      content,
    };
  }
  if (type === 'function_call_output') {
    if (typeof raw.call_id !== 'string' || raw.call_id === '') {
      return void issues.add([...loc, 'call_id'], 'Input should be a non-empty string', raw.call_id);
    }
    const output = typeof raw.output === 'string' ? raw.output : textOf(raw.output);
    if (output === undefined) {
      return void issues.add([...loc, 'output'], 'Input should be a string or text parts', raw.output);
    }
    const id = `fco_${randomUUID().replace(/-/g, '')}`;
    return { type: 'function_call_output', id, call_id: raw.call_id, output, status: 'completed' };
  }
  issues.add([...loc, 'type'], `Input items of type ${JSON.stringify(type)} are not supported here`, type);
  return undefined;
}

/** `function_call_output.output` given as content parts: their text. */
function textOf(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  return parts.map((p) => (isJsonObject(p) && typeof p.text === 'string' ? p.text : '')).join('');
}

/** OpenAI's rule for function names. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** A function tool, checked; other tool types (hosted tools) are not the workflow's and are left out. */
function functionToolOf(raw: unknown, i: number, issues: Issues): FunctionTool | undefined {
  if (!isJsonObject(raw) || typeof raw.type !== 'string') {
    return void issues.add(['tools', i], 'Input should be a tool object with a type', raw);
  }
  if (raw.type !== 'function') return undefined;
  if (typeof raw.name !== 'string' || !TOOL_NAME.test(raw.name)) {
    const msg = 'Input should be a function name: 1 to 64 letters, digits, _ or -';
    return void issues.add(['tools', i, 'name'], msg, raw.name, 'value_error');
  }
  const description = raw.description ?? null;
  if (description !== null && typeof description !== 'string') {
    return void issues.add(['tools', i, 'description'], 'Input should be a valid string', description);
  }
  const parameters = raw.parameters ?? null;
  if (parameters !== null && !isJsonObject(parameters)) {
    return void issues.add(['tools', i, 'parameters'], 'Input should be a JSON Schema object', parameters);
  }
  const strict = typeof raw.strict === 'boolean' ? raw.strict : null;
  return { type: 'function', name: raw.name, description, parameters, strict };
}

function metadataOf(value: unknown, issues: Issues): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isJsonObject(value)) return (issues.add(['metadata'], 'Input should be an object', value), {});
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA) issues.add(['metadata'], `At most ${MAX_METADATA} keys`, value);
  for (const [key, v] of entries) {
    if (typeof v !== 'string') issues.add(['metadata', key], 'Input should be a valid string', v);
  }
  return value as Record<string, string>;
}

/** The request when it is a valid Responses body; otherwise every reason it is not, as a 400. */
export function parseResponseRequest(body: unknown): ResponseRequest {
  const issues = new Issues();
  if (!isJsonObject(body)) {
    issues.add([], 'The body should be a JSON object', body);
    throw AppError.validation(issues.list);
  }
  let input: InputItem[] = [];
  if (typeof body.input === 'string') {
    input = [itemOf({ role: 'user', content: body.input }, 0, issues)!];
  } else if (Array.isArray(body.input)) {
    input = body.input.flatMap((raw, i) => itemOf(raw, i, issues) ?? []);
  } else {
    issues.add(['input'], 'Input should be a string or a list of input items', body.input, 'missing');
  }
  const request: ResponseRequest = {
    input,
    instructions: issues.optional(body, 'instructions', 'string', null),
    model: issues.optional(body, 'model', 'string', undefined),
    stream: issues.optional(body, 'stream', 'boolean', false),
    store: issues.optional(body, 'store', 'boolean', true),
    background: issues.optional(body, 'background', 'boolean', false),
    previous_response_id: issues.optional(body, 'previous_response_id', 'string', null),
    metadata: metadataOf(body.metadata, issues),
    user: issues.optional(body, 'user', 'string', null),
    tools: [],
    functionTools: [],
    tool_choice: body.tool_choice ?? 'auto',
    temperature: issues.optional(body, 'temperature', 'number', null),
    top_p: issues.optional(body, 'top_p', 'number', null),
  };
  if (body.tools !== undefined && body.tools !== null) {
    if (Array.isArray(body.tools)) {
      request.tools = body.tools;
      request.functionTools = body.tools.flatMap((raw, i) => functionToolOf(raw, i, issues) ?? []);
    } else issues.add(['tools'], 'Input should be a valid list', body.tools);
  }
  if (issues.list.length > 0) throw AppError.validation(issues.list);
  return request;
}
