'use strict';
const http = require('node:http');
const { JSON_PATH } = require('../lib/shared');

/** Baseline: plain node:http, reads and parses the JSON body, answers {value: body.message}. */
module.exports = function start() {
  return http.createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== JSON_PATH) {
      res.writeHead(404).end();
      return;
    }
    const parts = [];
    req.on('data', (c) => parts.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8'));
      const out = JSON.stringify({ value: body.message });
      res.writeHead(200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': Buffer.byteLength(out),
      });
      res.end(out);
    });
  });
};
