import { randomUUID } from 'node:crypto';
import { isChatCompletion, usageFor } from '../runtime/chat-completion';

/** OpenAI's `Response.status`. */
export type ResponseStatus = 'completed' | 'failed' | 'incomplete' | 'in_progress' | 'queued' | 'cancelled';

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  status: 'in_progress' | 'completed';
  role: 'assistant';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed';
}

export type OutputItem = MessageItem | FunctionCallItem;

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** OpenAI's `response` object, as every route of this face shows it. */
export interface ResponseObject {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  background: boolean;
  error: { code: string; message: string } | null;
  incomplete_details: null;
  instructions: string | null;
  max_output_tokens: null;
  metadata: Record<string, string>;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: null; summary: null };
  service_tier: 'default';
  store: boolean;
  temperature: number | null;
  text: { format: { type: 'text' } };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: 'disabled';
  usage: ResponseUsage | null;
  user: string | null;
}

/** What a response is made of before it runs (plain data: a record keeps it for its renderer). */
export type ResponseBase = Pick<
  ResponseObject,
  | 'id'
  | 'created_at'
  | 'background'
  | 'instructions'
  | 'metadata'
  | 'model'
  | 'previous_response_id'
  | 'store'
  | 'temperature'
  | 'tool_choice'
  | 'tools'
  | 'top_p'
  | 'user'
>;

export function newResponseId(): string {
  return `resp_${randomUUID().replace(/-/g, '')}`;
}

/**
 * An item's id, from its response's id and its place in the output: a stream rendered again from the
 * execution's events (a re-attached background stream, another replica) names every item the same.
 */
export function itemId(prefix: 'msg' | 'fc', responseId: string, index: number): string {
  return `${prefix}_${responseId.slice('resp_'.length)}_${index}`;
}

export function responseObject(base: ResponseBase, status: ResponseStatus): ResponseObject {
  return {
    id: base.id,
    object: 'response',
    created_at: base.created_at,
    status,
    background: base.background,
    error: null,
    incomplete_details: null,
    instructions: base.instructions,
    max_output_tokens: null,
    metadata: base.metadata,
    model: base.model,
    output: [],
    parallel_tool_calls: true,
    previous_response_id: base.previous_response_id,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: base.store,
    temperature: base.temperature,
    text: { format: { type: 'text' } },
    tool_choice: base.tool_choice,
    tools: base.tools,
    top_p: base.top_p,
    truncation: 'disabled',
    usage: null,
    user: base.user,
  };
}

/** The response as it opens, before any event: `queued` in the background, else `in_progress`. */
export function openingObject(base: ResponseBase): ResponseObject {
  return responseObject(base, base.background ? 'queued' : 'in_progress');
}

/**
 * The response's token usage: the model's own count when the workflow answered with a chat completion
 * (an LLM agent), else an estimate from the prompt's and the answer's words, as the chat face does.
 */
export function usageOf(result: unknown, prompt: string, text: string): ResponseUsage {
  const usage = isChatCompletion(result) ? result.usage : usageFor(prompt, text);
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: usage.total_tokens,
  };
}

/** The assistant text of a response's output (what the SDK calls `output_text`). */
export function outputText(output: readonly OutputItem[]): string {
  return output.flatMap((item) => (item.type === 'message' ? item.content.map((c) => c.text) : [])).join('');
}
