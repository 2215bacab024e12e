'use strict';
const http = require('node:http');
const { STREAM_PATH, STREAM_CHUNKS } = require('../lib/shared');

/**
 * Baseline: plain node:http SSE. Parses the JSON body, sends the same headers as Interlude, flushes
 * them, then writes the same 1,000 frames (one JSON.stringify and one write per frame) and ends.
 */
module.exports = function start() {
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== STREAM_PATH) {
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
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      for (let i = 0; i < STREAM_CHUNKS; i++) res.write(`data: ${JSON.stringify({ value: 'chunk ' })}\n\n`);
      res.end();
    });
  });
};
