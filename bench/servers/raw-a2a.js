'use strict';
const fs = require('node:fs');
const http = require('node:http');

/**
 * Baseline for the A2A streaming row: plain node:http answering `SendStreamingMessage` with the same
 * JSON-RPC SSE events Interlude sent for the same task. `variant` is the path of a JSON file written by
 * bench/a2a.js: `{card, results}`, Interlude's agent card and the `result` of each event of one
 * captured stream. Each request's body is parsed, the headers flushed, and each event written as
 * `data: {"jsonrpc":"2.0","id":<the request's id>,"result":…}` (one JSON.stringify and one write per
 * event), then the response ends. The card is served with this server's own JSON-RPC URL.
 */
module.exports = function start(variant) {
  const { card, results } = JSON.parse(fs.readFileSync(variant, 'utf8'));
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/agent-card.json') {
      const { port } = server.address();
      const own = {
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((i) => ({
          ...i,
          url: `http://127.0.0.1:${port}/a2a`,
        })),
      };
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(own));
      return;
    }
    if (req.method !== 'POST' || req.url !== '/a2a') {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const { id } = JSON.parse(Buffer.concat(parts).toString('utf8'));
      res.writeHead(200, {
        'Content-Type': 'text/event-stream',
        'Cache-Control': 'no-cache',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.flushHeaders();
      res.socket?.setNoDelay(true);
      for (const result of results) res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`);
      res.end();
    });
  });
  return server;
};
