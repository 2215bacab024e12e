import { isJsonObject } from '../../core/validation/json-object';
import type { ChatUsage } from '../chat-completion';
import type { LlmResponse, ModelToolCall } from './llm-client';

/**
 * What a model's answer must be for this server to read it: a model (or the server in front of it)
 * answering anything else fails the call with a message naming what was wrong, never a TypeError, a
 * silently empty answer, or a value that is not text passed on to a caller as the answer.
 */

/** The most tool calls one answer may make (a streamed call's `index` is below it). */
export const MAX_TOOL_CALLS = 1024;

/** A short description of a value that is not what was expected: its kind, never its content. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A message's content as text: a string, nothing, or a list of text parts (as some servers send). */
function textOf(content: unknown): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((p) => isJsonObject(p) && typeof p.text === 'string')) {
    return content.map((p) => (p as { text: string }).text).join('');
  }
  throw new Error(`its answer's content is ${kindOf(content)}, not text`);
}

function toolCallOf(call: unknown, i: number): ModelToolCall {
  if (!isJsonObject(call)) throw new Error(`its tool call ${i} is ${kindOf(call)}, not an object`);
  const { id, type, function: fn } = call;
  if (type !== undefined && type !== 'function') {
    const named = typeof type === 'string' ? JSON.stringify(type.slice(0, 40)) : kindOf(type);
    throw new Error(`its tool call ${i} is of type ${named}: only "function" calls are supported`);
  }
  if (!isJsonObject(fn) || typeof fn.name !== 'string')
    throw new Error(`its tool call ${i} names no function`);
  const given = fn.arguments ?? '';
  // Some servers send the arguments as an object rather than as its JSON text.
  const args = isJsonObject(given) ? JSON.stringify(given) : given;
  if (typeof args !== 'string') throw new Error(`its tool call ${i} has arguments that are ${kindOf(given)}`);
  return {
    id: typeof id === 'string' ? id : '',
    type: 'function',
    function: { name: fn.name, arguments: args },
  };
}

function toolCallsOf(calls: unknown): ModelToolCall[] {
  if (calls === null || calls === undefined) return [];
  if (!Array.isArray(calls)) throw new Error(`its tool_calls is ${kindOf(calls)}, not a list`);
  if (calls.length > MAX_TOOL_CALLS) {
    throw new Error(`it made ${calls.length} tool calls, more than ${MAX_TOOL_CALLS} in one answer`);
  }
  return calls.map(toolCallOf);
}

/** A count of tokens as reported: a whole number from 0, else not counted. */
export const tokens = (n: unknown): number | undefined =>
  Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : undefined;

/** The usage an endpoint reported, its counts that are no whole numbers from 0 left out (null: none). */
export function usageOf(usage: unknown): ChatUsage | null {
  if (!isJsonObject(usage)) return null;
  const prompt = tokens(usage.prompt_tokens);
  const completion = tokens(usage.completion_tokens);
  const total = tokens(usage.total_tokens);
  if (prompt === undefined && completion === undefined && total === undefined) return null;
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: total ?? (prompt ?? 0) + (completion ?? 0),
  };
}

/** A chat completion as the endpoint sent it (whole), as this server reads it; throws what is wrong. */
export function answerOf(completion: unknown): LlmResponse {
  if (!isJsonObject(completion))
    throw new Error(`its answer is ${kindOf(completion)}, not a chat completion`);
  const { choices } = completion;
  if (!Array.isArray(choices) || choices.length === 0) throw new Error('its answer holds no choice');
  const message = isJsonObject(choices[0]) ? choices[0].message : undefined;
  if (!isJsonObject(message)) throw new Error("its answer's first choice holds no message");
  return {
    content: textOf(message.content),
    toolCalls: toolCallsOf(message.tool_calls),
    usage: usageOf(completion.usage),
  };
}

interface ToolCallParts {
  id?: unknown;
  type?: unknown;
  name?: unknown;
  args: string[];
}

/**
 * A streamed answer put together chunk by chunk, as the SDK's own accumulation would, but checked as
 * it comes: only the first choice is read (a chunk's `index` for another is skipped, whatever its
 * value), and a tool call's `index` must be a whole number under MAX_TOOL_CALLS (the SDK stores chunks
 * in arrays at the index the server names: one chunk naming 1e9 blocked the process for seconds).
 */
export class StreamedAnswer {
  private readonly text: string[] = [];
  private readonly calls = new Map<number, ToolCallParts>();
  private usage: unknown;
  /** Whether a chunk carried the first choice (a stream that never does holds no answer). */
  private chosen = false;
  /** Whether the model has begun calling tools. */
  inToolCall = false;

  /** Reads one chunk; returns the text it adds to the answer ('' when none). */
  add(chunk: unknown): string {
    if (!isJsonObject(chunk)) throw new Error(`it streamed a chunk that is ${kindOf(chunk)}`);
    if (chunk.usage !== undefined && chunk.usage !== null) this.usage = chunk.usage;
    const choice = Array.isArray(chunk.choices)
      ? chunk.choices.find((c) => isJsonObject(c) && (c.index === 0 || c.index === undefined))
      : undefined;
    if (choice !== undefined) this.chosen = true;
    const delta = isJsonObject(choice) ? choice.delta : undefined;
    if (!isJsonObject(delta)) return '';
    if (delta.tool_calls !== undefined && delta.tool_calls !== null) this.addToolCalls(delta.tool_calls);
    const { content } = delta;
    if (content === undefined || content === null) return '';
    if (typeof content !== 'string')
      throw new Error(`it streamed content that is ${kindOf(content)}, not text`);
    this.text.push(content);
    return content;
  }

  private addToolCalls(deltas: unknown): void {
    if (!Array.isArray(deltas))
      throw new Error(`it streamed tool_calls that are ${kindOf(deltas)}, not a list`);
    for (const delta of deltas) {
      if (!isJsonObject(delta)) throw new Error(`it streamed a tool call that is ${kindOf(delta)}`);
      const { index } = delta;
      if (!Number.isSafeInteger(index) || (index as number) < 0 || (index as number) >= MAX_TOOL_CALLS) {
        const shown = typeof index === 'number' ? String(index) : kindOf(index);
        throw new Error(
          `it streamed a tool call with index ${shown} (a whole number under ${MAX_TOOL_CALLS})`,
        );
      }
      this.inToolCall = true;
      let call = this.calls.get(index as number);
      if (!call) this.calls.set(index as number, (call = { args: [] }));
      if (delta.id) call.id = delta.id;
      if (delta.type) call.type = delta.type;
      const fn = delta.function;
      if (!isJsonObject(fn)) continue;
      if (fn.name) call.name = fn.name;
      if (typeof fn.arguments === 'string') call.args.push(fn.arguments);
      else if (fn.arguments !== undefined && fn.arguments !== null)
        call.args.push(JSON.stringify(fn.arguments));
    }
  }

  /** The whole answer, checked as a whole one is (answerOf). */
  answer(): LlmResponse {
    if (!this.chosen) throw new Error('its streamed answer held no choice');
    const calls = [...this.calls.entries()]
      .sort(([a], [b]) => a - b)
      .map(([, c]) => ({ id: c.id, type: c.type, function: { name: c.name, arguments: c.args.join('') } }));
    const message = { content: this.text.join(''), tool_calls: calls.length ? calls : undefined };
    return answerOf({ choices: [{ message }], usage: this.usage });
  }
}
