'use strict';
const http = require('node:http');
const { WebSocketServer } = require('ws');
const { wsChunkMessage, wsCompleteMessage, STREAM_CHUNKS } = require('../lib/shared');

/**
 * The baseline: a bare `ws` server on a node:http server (noServer, upgrade on the same path). Each
 * message it receives is answered with STREAM_CHUNKS prebuilt chunk messages of the size Interlude
 * sends, then a `complete` message: the cost of the socket and the frames, nothing else.
 */
module.exports = async function start() {
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  server.on('upgrade', (req, socket, head) => {
    wss.handleUpgrade(req, socket, head, (ws) => {
      ws.on('error', () => undefined);
      ws.on('message', () => {
        for (let i = 0; i < STREAM_CHUNKS; i++) ws.send(wsChunkMessage);
        ws.send(wsCompleteMessage);
      });
    });
  });
  return server;
};
