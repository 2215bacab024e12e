'use strict';
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { STREAM_PATH, STREAM_CHUNKS } = require('../lib/shared');

/**
 * Baseline: plain node:http SSE. Parses the JSON body, sends the same headers as Interlude, flushes
 * them, then writes the same 1,000 frames (one JSON.stringify and one write per frame) and ends.
 * `variant` lists what Interlude's stream carries that this should copy: `ids` (an `id: n` line per
 * frame), `execid` (an `X-Execution-Id` header) and `trace` (an `observability_trace:` line first),
 * comma-separated.
 */
module.exports = function start(variant = '') {
  const features = new Set(variant.split(',').filter(Boolean));
  const ids = features.has('ids');
  const execId = features.has('execid');
  const trace = features.has('trace');
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== STREAM_PATH) {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(parts).toString('utf8'));
      const headers = {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      };
      if (execId) headers['X-Execution-Id'] = randomUUID();
      res.writeHead(200, headers);
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      if (trace) {
        const traceId = randomUUID().replace(/-/g, '');
        res.write(`observability_trace: ${JSON.stringify({ observability_trace_id: traceId })}\n\n`);
      }
      for (let i = 0; i < STREAM_CHUNKS; i++) {
        const id = ids ? `id: ${i + 1}\n` : '';
        res.write(`${id}data: ${JSON.stringify({ value: 'chunk ' })}\n\n`);
      }
      res.end();
    });
  });
};
