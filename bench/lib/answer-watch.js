'use strict';
const http = require('node:http');
const { nowMs, send } = require('./clients');

/**
 * On `port`: GET `streamPath` (an SSE stream), wait for its `interaction_required` frame, POST `body`
 * to `answerPath`, and time from then (ms) the 204 (`answered`), the stream's next frame (`resumed`:
 * the resumed workflow's first event, as this client sees it) and the stream's end (`completed`).
 * Resolves with those and the stream's whole `text`.
 */
function answerAndWatch({ port, streamPath, answerPath, body }) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: 'GET', path: streamPath });
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      let text = '';
      let t0;
      let answered;
      let resumed;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        if (t0 !== undefined && resumed === undefined) resumed = nowMs() - t0;
        if (t0 === undefined && text.includes('event: interaction_required')) {
          t0 = nowMs();
          send(undefined, port, 'POST', answerPath, body).then((r) => {
            if (r.status !== 204) reject(new Error(`answer: ${r.status} ${r.body}`));
            answered = nowMs() - t0;
          }, reject);
        }
      });
      res.on('end', () => {
        if (t0 === undefined) return reject(new Error(`stream ended before its prompt: ${text}`));
        const completed = nowMs() - t0;
        const done = () =>
          answered === undefined ? setTimeout(done, 1) : resolve({ text, resumed, completed, answered });
        done();
      });
    });
    req.end();
  });
}

module.exports = { answerAndWatch };
