import type { Response } from 'openai/resources/responses/responses';
import { isJsonObject } from '../../core/validation/json-object';
import { kindOf, MAX_TOOL_CALLS, tokens } from './llm-answer';

/**
 * What a Responses API answer must be for responses_api_agent to read it (as llm-answer.ts for chat
 * completions): its `output` a list of items, a message's text parts text, a function call's name,
 * arguments and call id strings; anything else fails the call naming what was wrong, never a TypeError
 * ("output is not iterable") or a value that is not text passed on as the answer. Token counts that are
 * no whole numbers from 0 are left out.
 */

type Json = Record<string, unknown>;

function checkMessage(item: Json, i: number): void {
  if (!Array.isArray(item.content)) throw new Error(`its output item ${i} (a message) has no content list`);
  item.content.forEach((part: unknown, j) => {
    if (!isJsonObject(part))
      throw new Error(`its output item ${i} has content part ${j} that is ${kindOf(part)}`);
    if (part.type === 'output_text' && typeof part.text !== 'string') {
      throw new Error(`its output item ${i} has text that is ${kindOf(part.text)}, not text`);
    }
  });
}

function checkFunctionCall(item: Json, i: number): void {
  if (typeof item.name !== 'string')
    throw new Error(`its function call (output item ${i}) names no function`);
  if (typeof item.call_id !== 'string')
    throw new Error(`its function call (output item ${i}) has no call_id`);
  // Some servers send the arguments as an object rather than as its JSON text.
  if (isJsonObject(item.arguments)) item.arguments = JSON.stringify(item.arguments);
  item.arguments ??= '';
  if (typeof item.arguments !== 'string') {
    throw new Error(`its function call (output item ${i}) has arguments that are ${kindOf(item.arguments)}`);
  }
}

/** `value` as a Responses answer this server can read (fixed up in place), or throws what is wrong. */
export function checkedResponse(value: unknown): Response {
  if (!isJsonObject(value)) throw new Error(`its answer is ${kindOf(value)}, not a response`);
  const { output } = value;
  if (!Array.isArray(output)) throw new Error(`its answer's output is ${kindOf(output)}, not a list`);
  let calls = 0;
  output.forEach((item: unknown, i) => {
    if (!isJsonObject(item) || typeof item.type !== 'string')
      throw new Error(`its output item ${i} has no type`);
    if (item.type === 'message') checkMessage(item, i);
    if (item.type === 'function_call') {
      checkFunctionCall(item, i);
      if (++calls > MAX_TOOL_CALLS) throw new Error(`it made more than ${MAX_TOOL_CALLS} function calls`);
    }
  });
  if (isJsonObject(value.usage)) {
    const { input_tokens, output_tokens, total_tokens } = value.usage;
    const [input, out] = [tokens(input_tokens) ?? 0, tokens(output_tokens) ?? 0];
    value.usage = {
      ...value.usage,
      input_tokens: input,
      output_tokens: out,
      total_tokens: tokens(total_tokens) ?? input + out,
    };
  } else {
    value.usage = undefined;
  }
  return value as unknown as Response;
}
