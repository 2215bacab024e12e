'use strict';
const http = require('node:http');
const { randomUUID } = require('node:crypto');

const TOKENS = 1000;

/**
 * Baseline: plain node:http writing the AG-UI events of a 1,000-token run as Interlude's face does
 * (RUN_STARTED, a text message of 1,000 deltas, RUN_FINISHED), one JSON.stringify and one write each.
 */
module.exports = function start() {
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/v1/ag-ui') {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const input = JSON.parse(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      const send = (event) => res.write(`data: ${JSON.stringify({ ...event, timestamp: Date.now() })}\n\n`);
      const { threadId, runId } = input;
      send({ type: 'RUN_STARTED', threadId, runId, protocolVersion: '1.0' });
      const messageId = randomUUID();
      send({ type: 'TEXT_MESSAGE_START', messageId, role: 'assistant' });
      for (let i = 0; i < TOKENS; i++) send({ type: 'TEXT_MESSAGE_CONTENT', messageId, delta: 'chunk ' });
      send({ type: 'TEXT_MESSAGE_END', messageId });
      send({ type: 'RUN_FINISHED', threadId, runId, outcome: { type: 'success' } });
      res.end();
    });
  });
};
