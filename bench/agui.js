'use strict';
/**
 * The AG-UI rows of `npm run bench` (`--only agui`):
 *  1. events per second of a 1,000-token streamed run through `POST /v1/ag-ui`, against a raw node:http
 *     server writing the same AG-UI events;
 *  2. with 1,000 threads paused on an interrupt: the time from sending a resume to the resumed run's
 *     first event after RUN_STARTED (p50/p99), and heap per paused thread.
 */
const http = require('node:http');
const { randomUUID } = require('node:crypto');
const { startServer, affinity } = require('./lib/servers');
const { streamRounds, timedPost } = require('./lib/clients');
const { fmt, kib, table } = require('./lib/report');

const HEADING = '## AG-UI';
const PATH = '/v1/ag-ui';
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function settings(quick) {
  return {
    connections: 10,
    warmupMs: quick ? 500 : 2000,
    /** Measured streaming per server, in two rounds taken in turns. */
    streamMs: quick ? 2000 : 10000,
    paused: quick ? 200 : 1000,
    latency: quick ? 50 : 300,
    concurrency: 50,
  };
}

const runBody = (threadId, extra = {}) =>
  JSON.stringify({
    threadId,
    runId: randomUUID(),
    messages: [{ id: randomUUID(), role: 'user', content: 'x' }],
    ...extra,
  });

function framesOf(text) {
  return text
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => JSON.parse(f.slice(6)));
}

/** Starts a server and checks its stream: the number of events and the bytes of one run. */
async function startStream(name, variant) {
  const server = await startServer(name, variant);
  const check = await timedPost({ port: server.port, path: PATH, body: runBody('check'), keepBody: true });
  const events = framesOf(check.body);
  if (check.status !== 200 || events.at(-1)?.type !== 'RUN_FINISHED')
    throw new Error(`${name} did not stream an AG-UI run: ${check.status} ${check.body.slice(0, 200)}`);
  return { name, server, events: events.length, bytes: Buffer.byteLength(check.body) };
}

async function measureStreams(S) {
  const entries = [];
  try {
    entries.push(await startStream('agui', 'stream'), await startStream('raw-agui'));
    const target = (e) => ({ port: e.server.port, path: PATH, body: runBody('bench'), expectBytes: e.bytes });
    return await streamRounds(entries, target, S);
  } finally {
    await Promise.all(entries.map((e) => e.server.stop()));
  }
}

/** One POST; resolves with the time of the first event after RUN_STARTED and the whole body. */
function post(agent, port, body) {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(body);
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      path: PATH,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    let sentAt = 0;
    let nextAt;
    let text = '';
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        if (nextAt === undefined && framesOf(text).length > 1) nextAt = nowMs();
      });
      res.on('end', () => resolve({ status: res.statusCode, sentAt, nextAt, events: framesOf(text) }));
    });
    req.end(payload);
    sentAt = nowMs();
  });
}

async function pool(items, concurrency, fn) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

async function measureResume(S) {
  const server = await startServer('agui', 'hitl', { nodeArgs: ['--expose-gc'] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.concurrency });
  try {
    const before = (await server.memory()).usage;
    const threads = Array.from({ length: S.paused }, () => ({ id: randomUUID() }));
    const parkStart = nowMs();
    await pool(threads, S.concurrency, async (t) => {
      const r = await post(agent, server.port, runBody(t.id));
      const end = r.events.at(-1);
      if (end?.outcome?.type !== 'interrupt')
        throw new Error(`thread ${t.id} did not pause: ${JSON.stringify(end)}`);
      t.interruptId = end.outcome.interrupts[0].id;
    });
    const parkPerSec = S.paused / ((nowMs() - parkStart) / 1000);
    const after = (await server.memory()).usage;
    const times = [];
    for (const t of threads.slice(0, S.latency)) {
      const resume = [{ interruptId: t.interruptId, status: 'resolved', payload: 'Ada' }];
      const r = await post(agent, server.port, runBody(t.id, { resume }));
      if (r.events.at(-1)?.outcome?.type !== 'success') throw new Error(`resume of ${t.id} did not complete`);
      times.push(r.nextAt - r.sentAt);
    }
    times.sort((a, b) => a - b);
    return {
      pinned: affinity(server.pid),
      parkPerSec,
      heapPerThread: (after.heapUsed - before.heapUsed) / S.paused,
      latency: {
        count: times.length,
        p50: percentile(times, 0.5),
        p99: percentile(times, 0.99),
        max: times.at(-1),
      },
    };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

async function measureAgui({ quick = false } = {}) {
  const S = settings(quick);
  const streams = await measureStreams(S);
  const resume = await measureResume(S);
  return { settings: S, streams, resume };
}

function aguiSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const [agui, raw] = r.streams;
  const l = r.resume.latency;
  const streamTable = table(
    ['Server', 'events/run', 'events/s', 'runs/s', 'vs raw'],
    [agui, raw].map((s) => [
      s.name === 'agui' ? 'Interlude POST /v1/ag-ui' : 'raw node:http SSE (same events)',
      fmt(s.eventsPerRun),
      fmt(s.eventsPerSec),
      fmt(s.runsPerSec, 1),
      `${fmt(s.eventsPerSec / raw.eventsPerSec, 2)}×`,
    ]),
  );
  const latencyTable = table(
    ['Time', 'p50 ms', 'p99 ms', 'max ms'],
    [['resume sent → first event after RUN_STARTED', fmt(l.p50, 3), fmt(l.p99, 3), fmt(l.max, 3)]],
  );
  const targets = [['Resume → next event p99 < 10 ms', `${fmt(l.p99, 3)} ms`, l.p99 < 10]];
  const text = `${HEADING}

- Command: \`npm run bench\` (alone: \`node bench/run.js --only agui\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}; machine: ${env.cpu}, ${env.cores} cores, load average at start ${env.load}; Node ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'} (Interlude affinity seen: ${agui.pinned})
- Streaming: a scripted workflow streaming \`chunk \` ${fmt(1000)} times; ${S.connections} keep-alive clients posting
  RunAgentInput back to back, ${S.streamMs / 1000} s per server in 2 rounds taken in turns. The raw baseline writes the
  same AG-UI events (RUN_STARTED, TEXT_MESSAGE_START, 1,000 TEXT_MESSAGE_CONTENT, END, RUN_FINISHED).
- Resume: ${fmt(S.paused)} threads paused on a text prompt (${fmt(r.resume.parkPerSec)} parked/s,
  ${kib(r.resume.heapPerThread)} heap per paused thread after GC); ${fmt(l.count)} of them resumed one at a time.

${streamTable}

${latencyTable}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

module.exports = { measureAgui, aguiSection, HEADING };
