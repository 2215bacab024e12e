'use strict';
/**
 * What a waiting AG-UI run holds: N anonymous runs, each with a large `state`, `forwardedProps` and
 * `context`, end on an interrupt (the workflow waits for a person); the server's heap and RSS after a
 * full GC, before and after, per waiting run. Usage (after `npm run build`):
 *   node bench/agui-held.js [--runs 30] [--body-bytes 900000]
 * A body over `max_stream_body_bytes` is refused (413) and holds nothing: the statuses are printed.
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { startServer } = require('./lib/servers');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** JSON of about `bytes` bytes, shaped like application state: many small objects. */
function filler(bytes, tag) {
  const items = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const item = { id: `${tag}-${i}`, label: `item ${i} of ${tag}`, done: i % 2 === 0, score: i * 1.5 };
    size += JSON.stringify(item).length + 1;
    items.push(item);
  }
  return items;
}

function runBody(bodyBytes) {
  const third = Math.floor(bodyBytes / 3);
  return JSON.stringify({
    threadId: randomUUID(),
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: 'user', content: 'hello' }],
    state: { items: filler(third, 'state') },
    forwardedProps: { items: filler(third, 'props') },
    context: filler(third, 'ctx').map((item) => ({ description: item.id, value: item.label })),
  });
}

function post(port, body) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: '/v1/ag-ui',
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode, interrupted: text.includes('"type":"interrupt"') }),
      );
    });
    req.end(payload);
  });
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(2)} MiB`;

async function main() {
  const runs = arg('runs', 30);
  const bodyBytes = arg('body-bytes', 900_000);
  const server = await startServer('agui', 'hitl', { nodeArgs: ['--expose-gc'] });
  try {
    const before = (await server.memory()).usage;
    const statuses = {};
    let interrupted = 0;
    for (let i = 0; i < runs; i++) {
      const r = await post(server.port, runBody(bodyBytes));
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      if (r.interrupted) interrupted++;
    }
    const after = (await server.memory()).usage;
    const heap = (after.heapUsed - before.heapUsed) / runs;
    const rss = (after.rss - before.rss) / runs;
    console.log(
      `${runs} runs of ${mib(bodyBytes)} bodies: statuses ${JSON.stringify(statuses)}, ${interrupted} waiting; ` +
        `heap ${mib(before.heapUsed)} -> ${mib(after.heapUsed)}, RSS ${mib(before.rss)} -> ${mib(after.rss)}; ` +
        `per run: heap ${mib(heap)}, RSS ${mib(rss)}`,
    );
  } finally {
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
