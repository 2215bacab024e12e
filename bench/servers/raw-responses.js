'use strict';
const http = require('node:http');
const { randomUUID } = require('node:crypto');

const TOKENS = 1000;

/** A `response` object with every member OpenAI's has, as the face sends it. */
function responseObject(id, status, output, usage) {
  return {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    background: false,
    error: null,
    incomplete_details: null,
    instructions: null,
    max_output_tokens: null,
    metadata: {},
    model: 'm',
    output,
    parallel_tool_calls: true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    store: true,
    temperature: null,
    text: { format: { type: 'text' } },
    tool_choice: 'auto',
    tools: [],
    top_p: null,
    truncation: 'disabled',
    usage,
    user: null,
  };
}

/**
 * Baseline: plain node:http writing the Responses events of a 1,000-token answer as Interlude's face
 * does (created, in_progress, the message item and its part, 1,000 deltas, their dones, completed),
 * one JSON.stringify and one write each.
 */
module.exports = function start() {
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/responses') {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      let seq = 0;
      const send = (type, body) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...body })}\n\n`);
      const id = `resp_${randomUUID().replace(/-/g, '')}`;
      const itemId = `msg_${id.slice(5)}_0`;
      send('response.created', { response: responseObject(id, 'in_progress', [], null) });
      send('response.in_progress', { response: responseObject(id, 'in_progress', [], null) });
      const item = { type: 'message', id: itemId, status: 'in_progress', role: 'assistant', content: [] };
      send('response.output_item.added', { output_index: 0, item });
      const at = { item_id: itemId, output_index: 0, content_index: 0 };
      const empty = { type: 'output_text', text: '', annotations: [], logprobs: [] };
      send('response.content_part.added', { ...at, part: empty });
      let text = '';
      for (let i = 0; i < TOKENS; i++) {
        text += 'chunk ';
        send('response.output_text.delta', { ...at, delta: 'chunk ', logprobs: [] });
      }
      const part = { ...empty, text };
      send('response.output_text.done', { ...at, text, logprobs: [] });
      send('response.content_part.done', { ...at, part });
      const done = { ...item, status: 'completed', content: [part] };
      send('response.output_item.done', { output_index: 0, item: done });
      const usage = {
        input_tokens: 1,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: TOKENS,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: TOKENS + 1,
      };
      send('response.completed', { response: responseObject(id, 'completed', [done], usage) });
      res.end();
    });
  });
};
