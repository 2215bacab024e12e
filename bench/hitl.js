'use strict';
/**
 * Human in the loop: 10,000 executions parked on a text prompt in one Interlude server.
 *
 *  1. Memory: the server's heapUsed (after a forced full GC: the child runs with --expose-gc) and rss
 *     before and after POST /v1/workflow has parked HITL.waiting executions (202 interaction_required);
 *     the difference over the count is the cost of one waiting execution.
 *  2. Status polls: GET /executions/{id} cycling through all the waiting ids, HITL.pollConnections
 *     keep-alive clients back to back; against a bare NestJS GET route answering a body of the same shape.
 *  3. Answer → next event: for HITL.latency of them, one at a time, re-attach to GET /executions/{id}/stream
 *     with Last-Event-ID = the id of its interaction_required frame (learnt from a first re-attach
 *     without it), POST the answer, and time the 204 and the next frame of the stream.
 *  4. The rest are answered (the server is left with no waiting execution) and a sample is checked to
 *     have completed with the workflow's result.
 *
 * Run by `npm run bench` (bench/run.js) after the JSON and streaming tables, or alone with
 * `node bench/run.js --only hitl` (same as `node bench/hitl.js`); --quick parks fewer executions.
 */
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { nowMs, percentile } = require('./lib/clients');
const { HITL_ANSWER, HITL_RESULT } = require('./lib/shared');
const { startServer, affinity } = require('./lib/servers');
const { fmt, kib, mib, table } = require('./lib/report');

const ANSWER = JSON.stringify({ response: { type: 'text', text: HITL_ANSWER } });
const START = JSON.stringify({ input_message: 'x' });

function settings(quick) {
  return {
    waiting: quick ? 2_000 : 10_000,
    /** Requests in flight while parking or answering executions. */
    concurrency: 100,
    /** Executions run start to end before the first memory sample (JIT, lazy state, sockets). */
    warmup: quick ? 200 : 500,
    pollConnections: 50,
    pollWarmupMs: quick ? 1_000 : 3_000,
    /** Measured poll time per server, split in two rounds taken in turns with the baseline. */
    pollMs: quick ? 2_000 : 6_000,
    latency: quick ? 100 : 500,
    /** Completed executions whose status result is checked at the end. */
    check: 20,
  };
}

// ---------------------------------------------------------------------------------------------------
// HTTP

/** One request; resolves at the end of the response with its status, body and the time of its headers. */
function send({ agent, port, method, path: urlPath, body, headers = {} }) {
  const payload = body === undefined ? undefined : Buffer.from(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      method,
      path: urlPath,
      headers: payload
        ? { ...headers, 'Content-Type': 'application/json', 'Content-Length': payload.length }
        : headers,
    });
    let t0 = 0;
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.on('error', reject);
    req.on('response', (res) => {
      const headersAt = nowMs();
      const parts = [];
      res.on('data', (chunk) => parts.push(chunk));
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          body: Buffer.concat(parts).toString('utf8'),
          sentAt: t0,
          headersAt,
        }),
      );
    });
    req.end(payload);
    t0 = nowMs();
  });
}

/** Runs `fn(item)` over `items` with at most `concurrency` in flight. */
async function pool(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

/** POST /v1/workflow, which must pause: the 202 body. */
async function park(agent, port) {
  const r = await send({ agent, port, method: 'POST', path: '/v1/workflow', body: START });
  if (r.status !== 202) throw new Error(`POST /v1/workflow answered ${r.status} ${r.body}, expected 202`);
  const body = JSON.parse(r.body);
  if (body.status !== 'interaction_required' || !body.response_url)
    throw new Error(`POST /v1/workflow paused with ${r.body}`);
  return body;
}

async function answer(agent, port, paused) {
  const r = await send({ agent, port, method: 'POST', path: paused.response_url, body: ANSWER });
  if (r.status !== 204) throw new Error(`POST ${paused.response_url} answered ${r.status} ${r.body}`);
  return r;
}

/** GET /executions/{id} until the execution has completed; checks its result. */
async function checkCompleted(agent, port, paused) {
  for (let attempt = 0; ; attempt++) {
    const r = await send({ agent, port, method: 'GET', path: paused.status_url });
    const body = r.status === 200 ? JSON.parse(r.body) : undefined;
    if (body?.status === 'completed') {
      if (JSON.stringify(body.result) !== HITL_RESULT)
        throw new Error(`${paused.execution_id} completed with ${r.body}, expected result ${HITL_RESULT}`);
      return;
    }
    if (r.status !== 200 || body.status !== 'running' || attempt === 100)
      throw new Error(`${paused.execution_id} did not complete: ${r.status} ${r.body}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

// ---------------------------------------------------------------------------------------------------
// Status polls

/** `connections` keep-alive clients polling `pathOf(i)` for i = 0, 1, 2, … back to back until `ms` is up. */
async function pollLoop({ port, pathOf, connections, ms, check }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let next = 0;
  let failure;
  const started = nowMs();
  const deadline = started + ms;
  const client = async () => {
    while (nowMs() < deadline && !failure) {
      const r = await send({ agent, port, method: 'GET', path: pathOf(next++) });
      if (r.status !== 200 || (check && !check(r.body))) failure = `${r.status} ${r.body}`;
      latencies.push(r.headersAt - r.sentAt);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, client));
  } finally {
    agent.destroy();
  }
  if (failure) throw new Error(`a status poll answered ${failure}`);
  return { latencies, elapsedMs: nowMs() - started };
}

function pollSummary(runs) {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const ms = runs.reduce((sum, r) => sum + r.elapsedMs, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / (ms / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

// ---------------------------------------------------------------------------------------------------
// Answer → next event

/** Splits SSE text into frames (`{id, event, data}`) and returns them with the unfinished rest. */
function frames(text) {
  const parts = text.split('\n\n');
  const rest = parts.pop();
  const out = parts
    .filter((p) => !p.startsWith(':'))
    .map((p) => {
      const f = {};
      for (const line of p.split('\n')) {
        const at = line.indexOf(': ');
        if (at > 0) f[line.slice(0, at)] = line.slice(at + 2);
      }
      return f;
    });
  return { frames: out, rest };
}

/**
 * Opens GET /executions/{id}/stream (with `lastEventId` as Last-Event-ID when given). Resolves once the
 * headers are in with `{res, next()}`: next() resolves with the next frame and the time its bytes came.
 */
function openStream(port, executionId, lastEventId) {
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent: false,
      host: '127.0.0.1',
      port,
      method: 'GET',
      path: `/executions/${executionId}/stream`,
      headers: lastEventId === undefined ? {} : { 'Last-Event-ID': String(lastEventId) },
    });
    req.on('socket', (socket) => socket.setNoDelay(true));
    req.on('error', reject);
    req.on('response', (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream of ${executionId}: ${res.statusCode}`));
      res.setEncoding('utf8');
      let buffer = '';
      const queue = [];
      const waiting = [];
      let ended = false;
      res.on('data', (chunk) => {
        const at = nowMs();
        const parsed = frames(buffer + chunk);
        buffer = parsed.rest;
        for (const frame of parsed.frames) {
          const item = { frame, at };
          if (waiting.length) waiting.shift().resolve(item);
          else queue.push(item);
        }
      });
      res.on('end', () => {
        ended = true;
        for (const w of waiting.splice(0)) w.reject(new Error(`stream of ${executionId} ended`));
      });
      resolve({
        next: () =>
          queue.length
            ? Promise.resolve(queue.shift())
            : ended
              ? Promise.reject(new Error(`stream of ${executionId} ended`))
              : new Promise((res2, rej2) => waiting.push({ resolve: res2, reject: rej2 })),
        /** Resolves when the server ends the stream. */
        ended: () => (ended ? Promise.resolve() : new Promise((done) => res.once('end', done))),
        close: () => req.destroy(),
      });
    });
    req.end();
  });
}

/** The `id:` of the execution's interaction_required frame, from a re-attach that replays everything. */
async function promptFrameId(port, paused) {
  const stream = await openStream(port, paused.execution_id);
  try {
    for (;;) {
      const { frame } = await stream.next();
      if (frame.event !== 'interaction_required') continue;
      if (JSON.parse(frame.data).interaction_id !== paused.interaction_id)
        throw new Error(`stream of ${paused.execution_id} replayed another interaction: ${frame.data}`);
      return Number(frame.id);
    }
  } finally {
    stream.close();
  }
}

/** One measurement: re-attach after the prompt's frame, answer, time the 204 and the next frame. */
async function answerToNextEvent(agent, port, paused) {
  const lastId = await promptFrameId(port, paused);
  const stream = await openStream(port, paused.execution_id, lastId);
  try {
    const nextFrame = stream.next();
    const r = await answer(agent, port, paused);
    const { frame, at } = await nextFrame;
    const expected = JSON.stringify({ value: `hi ` });
    if (!(Number(frame.id) > lastId) || frame.data !== expected)
      throw new Error(`after the answer, ${paused.execution_id} streamed ${JSON.stringify(frame)}`);
    await stream.ended();
    return { fromResponse: at - r.headersAt, fromSend: at - r.sentAt, answerMs: r.headersAt - r.sentAt };
  } finally {
    stream.close();
  }
}

// ---------------------------------------------------------------------------------------------------

/**
 * `heapSnapshots`: a directory; the server then writes hitl-before.heapsnapshot and
 * hitl-waiting.heapsnapshot there, beside the memory samples (compare them with bench/heap-summary.js).
 */
async function measureHitl({ quick = false, heapSnapshots } = {}) {
  const S = settings(quick);
  const log = (line) => process.stdout.write(`  ${line}\n`);
  const server = await startServer('interlude', 'hitl', { nodeArgs: ['--expose-gc'] });
  const { port } = server;
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.concurrency });
  const single = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let nest;
  let base;
  let baseTarget;
  try {
    // Warm-up: whole executions (park, poll, re-attach, answer), so the memory samples compare
    // steady states rather than JIT and first-use allocations.
    const warm = [];
    await pool(Array.from({ length: S.warmup }), S.concurrency, async () =>
      warm.push(await park(agent, port)),
    );
    await pool(warm.slice(0, 20), 1, (p) => answerToNextEvent(single, port, p));
    await pool(warm.slice(20), S.concurrency, async (p) => {
      await send({ agent, port, method: 'GET', path: p.status_url });
      await answer(agent, port, p);
    });
    await pool(warm.slice(0, S.check), S.concurrency, (p) => checkCompleted(agent, port, p));
    log(`warm-up: ${S.warmup} executions parked, polled and answered`);

    // 1. Memory per waiting execution.
    const before = await server.memory();
    if (!before.gc) throw new Error('the server child has no global.gc (--expose-gc)');
    const snapshot = async (name) => {
      if (!heapSnapshots) return;
      fs.mkdirSync(heapSnapshots, { recursive: true });
      const file = path.join(heapSnapshots, `hitl-${name}.heapsnapshot`);
      await server.heapSnapshot(file);
      log(`heap snapshot: ${path.relative(process.cwd(), file)}`);
    };
    await snapshot('before');
    const parked = new Array(S.waiting);
    const t0 = nowMs();
    await pool(parked, S.concurrency, async (_, i) => (parked[i] = await park(agent, port)));
    const parkMs = nowMs() - t0;
    const after = await server.memory();
    const promptJson = JSON.stringify(parked[0].prompt);
    const promptBytes = Buffer.byteLength(promptJson);
    const memory = {
      before: before.usage,
      after: after.usage,
      heapPer: (after.usage.heapUsed - before.usage.heapUsed) / S.waiting,
      rssPer: (after.usage.rss - before.usage.rss) / S.waiting,
      externalPer: (after.usage.external - before.usage.external) / S.waiting,
      promptJson,
      promptBytes,
      parkPerSec: S.waiting / (parkMs / 1000),
    };
    log(
      `parked ${S.waiting} executions (${fmt(memory.parkPerSec)}/s): heap ${fmt(memory.heapPer)} B, rss ${fmt(memory.rssPer)} B each`,
    );
    await snapshot('waiting');

    // 2. Status polls across all the waiting ids, against the bare NestJS GET route (and, with
    // BENCH_BASE_DIST, the same server built from another commit, holding as many waiting executions).
    nest = await startServer('nest', 'get');
    const ids = parked.map((p) => p.status_url);
    if (process.env.BENCH_BASE_DIST) {
      base = await startServer('interlude', 'hitl@base');
      const baseParked = new Array(S.waiting);
      await pool(baseParked, S.concurrency, async (_, i) => (baseParked[i] = await park(agent, base.port)));
      const baseIds = baseParked.map((p) => p.status_url);
      baseTarget = {
        key: 'base',
        label: 'base build: GET /executions/{id}',
        port: base.port,
        pathOf: (i) => baseIds[i % baseIds.length],
        check: (body) => body.includes('"status":"interaction_required"'),
      };
      log(`base build: parked ${S.waiting} executions`);
    }
    const targets = [
      {
        key: 'interlude',
        label: 'Interlude GET /executions/{id}',
        port,
        pathOf: (i) => ids[i % ids.length],
        check: (body) => body.includes('"status":"interaction_required"'),
      },
      {
        key: 'nest',
        label: 'NestJS 12 GET route (bare)',
        port: nest.port,
        pathOf: (i) => ids[i % ids.length],
        check: (body) => body.includes('"status":"interaction_required"'),
      },
      ...(baseTarget ? [baseTarget] : []),
    ];
    const polls = new Map(targets.map((t) => [t, []]));
    for (const t of targets) {
      await pollLoop({ ...t, connections: S.pollConnections, ms: S.pollWarmupMs });
      log(`warm-up ${t.label}`);
    }
    for (let r = 0; r < 2; r++) {
      for (const t of r === 0 ? targets : [...targets].reverse()) {
        const run = await pollLoop({ ...t, connections: S.pollConnections, ms: S.pollMs / 2 });
        polls.get(t).push(run);
        log(`round ${r + 1}/2 ${t.label}: ${fmt(run.latencies.length / (run.elapsedMs / 1000))} req/s`);
      }
    }
    const poll = Object.fromEntries(
      targets.map((t) => [t.key, { label: t.label, ...pollSummary(polls.get(t)) }]),
    );
    await Promise.all([nest.stop(), base?.stop()]);
    nest = undefined;
    base = undefined;

    // 3. Answer → next event, one execution at a time.
    const samples = [];
    for (const p of parked.slice(0, S.latency)) samples.push(await answerToNextEvent(single, port, p));
    const stats = (key) => {
      const sorted = samples.map((m) => m[key]).sort((a, b) => a - b);
      return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: sorted[sorted.length - 1] };
    };
    const latency = {
      count: S.latency,
      ...stats('fromResponse'),
      beforeResponse: samples.filter((m) => m.fromResponse < 0).length,
      fromSend: stats('fromSend'),
      answer: stats('answerMs'),
    };
    log(
      `answer → next event over ${S.latency}: p50 ${fmt(latency.p50, 3)} ms, p99 ${fmt(latency.p99, 3)} ms, max ${fmt(latency.max, 3)} ms`,
    );

    // 4. Answer the rest; check a sample (the first, the last, some between) completed with the result.
    const t1 = nowMs();
    await pool(parked.slice(S.latency), S.concurrency, (p) => answer(agent, port, p));
    const answerPerSec = (S.waiting - S.latency) / ((nowMs() - t1) / 1000);
    const step = Math.floor(S.waiting / S.check);
    const sample = Array.from({ length: S.check }, (_, i) => parked[Math.min(S.waiting - 1, i * step + 1)]);
    await pool([parked[0], ...sample, parked[S.waiting - 1]], S.concurrency, (p) =>
      checkCompleted(agent, port, p),
    );
    const done = await server.memory();
    log(
      `answered the other ${S.waiting - S.latency} (${fmt(answerPerSec)}/s); ${S.check + 2} checked completed`,
    );

    return {
      settings: S,
      pinned: affinity(server.pid),
      memory: { ...memory, completedHeapPer: (done.usage.heapUsed - before.usage.heapUsed) / S.waiting },
      poll,
      latency,
      answerPerSec,
    };
  } finally {
    agent.destroy();
    single.destroy();
    await Promise.all([server.stop(), nest?.stop(), base?.stop()]);
  }
}

// ---------------------------------------------------------------------------------------------------
// Reporting

const HEADING = '## Human in the loop';

/** The RESULTS.md section for a measureHitl() result; `env` as run.js's machine(). */
function hitlSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const { memory: m, poll, latency: l } = r;
  const count = fmt(S.waiting);
  const beyond = m.heapPer - m.promptBytes;
  const memoryTable = table(
    ['', 'heapUsed (after GC)', 'rss', 'external'],
    [
      ['before', mib(m.before.heapUsed), mib(m.before.rss), mib(m.before.external)],
      [`${count} waiting`, mib(m.after.heapUsed), mib(m.after.rss), mib(m.after.external)],
      [
        'per waiting execution',
        `${fmt(m.heapPer)} B (${kib(m.heapPer)})`,
        `${fmt(m.rssPer)} B (${kib(m.rssPer)})`,
        `${fmt(m.externalPer)} B`,
      ],
    ],
  );
  const pollTable = table(
    ['Server', 'req/s', 'p50 ms', 'p99 ms', 'req/s vs Nest'],
    [poll.interlude, poll.nest, ...(poll.base ? [poll.base] : [])].map((p) => [
      p.label,
      fmt(p.rps),
      fmt(p.p50, 3),
      fmt(p.p99, 3),
      `${fmt(p.rps / poll.nest.rps, 2)}×`,
    ]),
  );
  const latencyTable = table(
    ['Time', 'p50 ms', 'p99 ms', 'max ms'],
    [
      ['the answer’s 204 → next frame', fmt(l.p50, 3), fmt(l.p99, 3), fmt(l.max, 3)],
      ['answer sent → next frame', fmt(l.fromSend.p50, 3), fmt(l.fromSend.p99, 3), fmt(l.fromSend.max, 3)],
      ['answer sent → its 204', fmt(l.answer.p50, 3), fmt(l.answer.p99, 3), fmt(l.answer.max, 3)],
    ],
  );
  const targets = [
    [
      'Heap per waiting execution ≤ 8 KiB beyond the prompt',
      `${fmt(m.heapPer)} B − ${fmt(m.promptBytes)} B prompt = ${fmt(beyond)} B (${kib(beyond)})`,
      beyond <= 8192,
    ],
    [
      'Heap per waiting execution ≤ 4 KiB (issue 18)',
      `${fmt(m.heapPer)} B (${kib(m.heapPer)})`,
      m.heapPer <= 4096,
    ],
    [
      'Status polls ≥ 0.9× the bare NestJS GET (issue 18)',
      `${fmt(poll.interlude.rps)} vs ${fmt(poll.nest.rps)} = ${fmt(poll.interlude.rps / poll.nest.rps, 2)}×`,
      poll.interlude.rps >= 0.9 * poll.nest.rps,
    ],
    ['Answer’s 204 → next event p99 < 5 ms', `${fmt(l.p99, 3)} ms`, l.p99 < 5],
    ...(poll.base
      ? [
          [
            'Status polls within 5% of the base build (issue 26)',
            `${fmt(poll.interlude.rps)} vs ${fmt(poll.base.rps)} = ${fmt(poll.interlude.rps / poll.base.rps, 2)}×`,
            poll.interlude.rps >= 0.95 * poll.base.rps,
          ],
        ]
      : []),
  ];
  const targetTable = table(
    ['Target', 'Measured', 'Result'],
    targets.map(([t, meas, ok]) => [t, meas, ok ? 'PASS' : '**FAIL**']),
  );
  const text = `${HEADING} (${count} waiting executions)

- Command: \`npm run bench\` (alone: \`node bench/run.js --only hitl\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}
- Machine: ${env.cpu}, ${env.cores} cores, ${env.os}, load average at start ${env.load}
- Node: ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'} (Interlude affinity seen: ${r.pinned})
- Workflow: scripted, \`prompt: { input_type: text, text: 'Your name?', save_as: name }\`, then
  \`stream: { text: 'hi {{name}}' }\`, output \`'Hello {{name}}'\`; \`general.max_waiting_executions: 20000\`.
- Parking: \`POST /v1/workflow\` \`${START}\` → 202 \`interaction_required\`, ${S.concurrency} in flight
  (${fmt(m.parkPerSec)} executions/s), after a warm-up of ${fmt(S.warmup)} executions run to the end.
- Memory: the server child runs with \`--expose-gc\` and takes \`process.memoryUsage()\` after \`global.gc()\`
  (twice) before and after parking; per execution = difference / ${count}. The prompt as JSON (\`prompt\` in
  the 202 body, \`${m.promptJson}\`) is ${fmt(m.promptBytes)} bytes. Once all are answered, each
  completed execution still holds ${fmt(m.completedHeapPer)} B of heap until \`execution_ttl_seconds\` (600 s) evicts it.
  Where the bytes go: \`node bench/run.js --only hitl --heap-snapshot\`, then
  \`node bench/heap-summary.js bench/profiles/hitl-before.heapsnapshot bench/profiles/hitl-waiting.heapsnapshot --per ${S.waiting}\`.
- Status polls: ${S.pollConnections} keep-alive clients back to back, cycling through the ${count} waiting ids,
  ${S.pollWarmupMs / 1000} s warm-up then ${S.pollMs / 1000} s per server in 2 rounds taken in turns; every answer
  checked to be 200 \`interaction_required\`. Baseline: a bare NestJS 12 \`@Get('executions/:id')\` route answering
  a canned body of the same shape. Latency = request sent → response headers.
- Answer → next event: ${fmt(l.count)} of the waiting executions, one at a time: re-attach to
  \`GET /executions/{id}/stream\` to learn the \`id:\` of its \`interaction_required\` frame, re-attach again with
  that id as \`Last-Event-ID\` (nothing replayed), \`POST\` the answer to its \`response_url\` (204), and take the
  arrival of the next frame (\`data: {"value":"hi "}\`) on the stream. The 204 is written first: the workflow
  resumes once the turn of the event loop that accepted the answer is over. ${fmt(l.beforeResponse)} of ${fmt(l.count)} next frames
  still arrived *before* the 204 (negative "204 → next frame" times: the two come on different connections).
  "Answer sent → next frame" is the whole round trip.
- Then the other ${fmt(S.waiting - l.count)} were answered (${S.concurrency} in flight, ${fmt(r.answerPerSec)}/s) and a sample of ${S.check + 2}
  checked to have completed with \`result\` \`${HITL_RESULT}\`.

### Memory per waiting execution

${memoryTable}

### Status polls (${count} waiting executions)

${pollTable}

### Answer → next event (${fmt(l.count)} executions)

${latencyTable}

### Targets (human in the loop)

${targetTable}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

module.exports = { measureHitl, hitlSection, HEADING };

if (require.main === module) {
  // Alone: through run.js, which pins this load generator and the server to their cores.
  const { spawnSync } = require('node:child_process');
  const run = spawnSync(
    process.execPath,
    [path.join(__dirname, 'run.js'), '--only', 'hitl', ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(run.status ?? 1);
}
