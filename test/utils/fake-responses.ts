/**
 * The fake LLM's `POST /v1/responses` answer: OpenAI's Responses API response object for a scripted
 * reply (text as one assistant message, tool calls as `function_call` items), as the real API sends it
 * for a non-streamed request.
 */
import type { Reply } from './fake-llm';

type Answer = Exclude<Reply, { kind: 'error' } | { kind: 'hang' } | { kind: 'raw' }>;

export function responseBody(reply: Answer, request: Record<string, unknown>, n: number): unknown {
  const output: unknown[] = [];
  if (reply.text) {
    output.push({
      type: 'message',
      id: `msg_fake_${n}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: reply.text, annotations: [], logprobs: [] }],
    });
  }
  if (reply.kind === 'tools') {
    reply.calls.forEach((c, i) =>
      output.push({
        type: 'function_call',
        id: `fc_fake_${n}_${i}`,
        call_id: c.id ?? `call_${n}_${i}`,
        name: c.name,
        arguments: JSON.stringify(c.arguments),
        status: 'completed',
      }),
    );
  }
  const { prompt_tokens, completion_tokens, total_tokens } = reply.usage;
  return {
    id: `resp_fake_${n}`,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    model: request.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: request.previous_response_id ?? null,
    temperature: request.temperature ?? 1,
    top_p: request.top_p ?? 1,
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    text: { format: { type: 'text' } },
    truncation: 'disabled',
    usage: {
      input_tokens: prompt_tokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: completion_tokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens,
    },
    metadata: {},
  };
}
