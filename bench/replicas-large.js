'use strict';
/**
 * What one large anonymous request leaves in Redis on the shared store (`general.executions.store:
 * postgres`): one `interlude serve` on PostgreSQL + Redis runs the demo workflow of config/default.yml,
 * which quotes its input in two tool steps, in the streamed text and in its result. Each request is
 * sent with the largest body the server takes (the first of `sizes` not answered 413) and read to its
 * end; then MEMORY USAGE of the deployment's Redis keys, less what they held before. The event log
 * stays there until the execution's record is evicted (`execution_ttl_seconds`), or for
 * `event_log_retention_seconds` when its replica dies first.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { ROOT } = require('./lib/servers');
const { fmt, mib, table } = require('./lib/report');
const { cleanup, redisBytes, startReplica } = require('./lib/replica-servers');

const KiB = 1024;
const MiB = 1024 * KiB;

/** Measured with the build before event logs were bounded in Redis (d752b32), same requests. */
const BEFORE = { agui: 52_435_064, stream: 5_249_144 };

const REQUESTS = [
  {
    key: 'agui',
    label: 'AG-UI `POST /v1/ag-ui`, one user message',
    path: '/v1/ag-ui',
    sizes: [9 * MiB, MiB - 16 * KiB],
    body: (input, tag) =>
      JSON.stringify({
        threadId: `bench-${tag}`,
        runId: `run-${tag}`,
        messages: [{ id: 'm1', role: 'user', content: input }],
        tools: [],
        context: [],
        state: {},
        forwardedProps: {},
      }),
  },
  {
    key: 'stream',
    label: '`POST /v1/workflow/stream`, `input_message`',
    path: '/v1/workflow/stream',
    sizes: [MiB - 16 * KiB],
    body: (input) => JSON.stringify({ input_message: input }),
  },
];

/** The demo workflow: config/default.yml from its `workflow:` on. */
function demoWorkflow() {
  const text = fs.readFileSync(path.join(ROOT, 'config', 'default.yml'), 'utf8');
  return text.slice(text.indexOf('\nworkflow:') + 1);
}

/** POSTs `body` and reads the answer to its end; its status. */
function post(port, urlPath, body) {
  const payload = Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: urlPath,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        'Content-Length': payload.length,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
      res.on('error', reject);
    });
    req.end(payload);
  });
}

async function measureLargeRequests(dir) {
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_large_${tag}`;
  const prefix = `interlude-bench:${tag}:`;
  const url = new URL(process.env.DATABASE_URL);
  url.searchParams.set('schema', schema);
  const file = path.join(dir, `replicas-large-${tag}.yml`);
  fs.writeFileSync(
    file,
    `general:
  db_url: '${url}'
  executions:
    store: postgres
    redis_url: '${process.env.REDIS_URL}'
    redis_key_prefix: '${prefix}'
${demoWorkflow()}`,
  );
  const replica = await startReplica(file, 'large');
  const rows = [];
  try {
    for (const request of REQUESTS) {
      for (const size of request.sizes) {
        const before = await redisBytes(prefix);
        const input = 'x'.repeat(size);
        const body = request.body(input, `${tag}-${request.key}-${size}`);
        const status = await post(replica.port, request.path, body);
        if (status === 413) continue;
        if (status !== 200) throw new Error(`${request.path} answered ${status}`);
        const after = await redisBytes(prefix);
        rows.push({
          ...request,
          bodyBytes: Buffer.byteLength(body),
          redisBytes: after.bytes - before.bytes,
          keys: after.keys - before.keys,
        });
        break;
      }
    }
    return rows;
  } finally {
    await replica.kill('SIGKILL');
    await cleanup(schema, prefix);
  }
}

function largeRequestsTable(rows) {
  if (!rows?.length) return '';
  return table(
    [
      'one anonymous request, demo workflow (input quoted by its events)',
      'body',
      'Redis bytes it leaves',
      'before',
    ],
    rows.map((r) => [
      r.label,
      mib(r.bodyBytes),
      `${fmt(r.redisBytes)} (${fmt(r.keys, 1)} keys)`,
      BEFORE[r.key] === undefined ? '—' : fmt(BEFORE[r.key]),
    ]),
  );
}

module.exports = { measureLargeRequests, largeRequestsTable };
