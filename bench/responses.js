'use strict';
/**
 * The OpenAI Responses rows of `npm run bench` (`--only responses`):
 *  1. events per second of a 1,000-token streamed response through `POST /v1/responses`, against a raw
 *     node:http server writing the same Responses events;
 *  2. time to the first `response.output_text.delta` (p50/p99) against the first content chunk of
 *     `/v1/chat/completions` streaming, the same workflow on the same server, requests taken in turns;
 *  3. whole (non-streamed) answers: requests per second, latency and server CPU per request of
 *     `/v1/responses` against `/v1/chat/completions` on the same server.
 */
const http = require('node:http');
const { startServer, affinity } = require('./lib/servers');
const { streamRounds, timedPost, nowMs, percentile } = require('./lib/clients');
const { fmt, table } = require('./lib/report');

const HEADING = '## OpenAI Responses';
const RESPONSES = '/v1/responses';
const CHAT = '/v1/chat/completions';

function settings(quick) {
  return {
    connections: 10,
    warmupMs: quick ? 500 : 2000,
    /** Measured streaming per server, in two rounds taken in turns. */
    streamMs: quick ? 2000 : 10000,
    /** Sequential requests per route for the time to the first token, after `ttftWarmup` each. */
    ttft: quick ? 60 : 400,
    ttftWarmup: quick ? 20 : 100,
    /** Whole answers: per route, in two rounds taken in turns. */
    wholeMs: quick ? 2000 : 8000,
  };
}

const ROUTES = {
  responses: {
    path: RESPONSES,
    body: (stream) => JSON.stringify({ model: 'm', input: 'x', stream }),
    firstToken: 'event: response.output_text.delta',
  },
  chat: {
    path: CHAT,
    body: (stream) => JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream }),
    firstToken: '"content":"',
  },
};

function eventsOf(text) {
  return text.split('\n\n').filter((f) => f.startsWith('event: '));
}

/** Starts a server and checks its stream: the number of events and the bytes of one response. */
async function startStream(name, variant) {
  const server = await startServer(name, variant);
  const check = await timedPost({
    port: server.port,
    path: RESPONSES,
    body: ROUTES.responses.body(true),
    keepBody: true,
  });
  const events = eventsOf(check.body);
  if (check.status !== 200 || !events.at(-1)?.startsWith('event: response.completed'))
    throw new Error(`${name} did not stream a response: ${check.status} ${check.body.slice(0, 200)}`);
  return { name, server, events: events.length, bytes: Buffer.byteLength(check.body) };
}

async function measureStreams(S) {
  const entries = [];
  try {
    entries.push(await startStream('responses', 'stream'), await startStream('raw-responses'));
    const target = (e) => ({
      port: e.server.port,
      path: RESPONSES,
      body: ROUTES.responses.body(true),
      expectBytes: e.bytes,
    });
    return await streamRounds(entries, target, S);
  } finally {
    await Promise.all(entries.map((e) => e.server.stop()));
  }
}

/** One streamed POST: ms from the end of the request to the chunk that holds the first token. */
function firstTokenMs(agent, port, route) {
  const payload = Buffer.from(route.body(true));
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent,
      host: '127.0.0.1',
      port,
      path: route.path,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Content-Length': payload.length },
    });
    let sentAt = 0;
    let at;
    let text = '';
    req.on('error', reject);
    req.on('response', (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        if (at !== undefined) return;
        text += chunk;
        if (text.includes(route.firstToken)) at = nowMs() - sentAt;
      });
      res.on('end', () => {
        if (res.statusCode !== 200 || at === undefined)
          reject(new Error(`${route.path}: ${res.statusCode}, no token in ${text.slice(0, 200)}`));
        else resolve(at);
      });
    });
    req.end(payload);
    sentAt = nowMs();
  });
}

const spread = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  return { count: sorted.length, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
};

/** Sequential streamed requests on one keep-alive connection, the two routes taken in turns. */
async function measureFirstToken(S, server) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = { responses: [], chat: [] };
  try {
    for (let i = 0; i < S.ttftWarmup + S.ttft; i++) {
      const order = i % 2 ? ['chat', 'responses'] : ['responses', 'chat'];
      for (const name of order) {
        const ms = await firstTokenMs(agent, server.port, ROUTES[name]);
        if (i >= S.ttftWarmup) times[name].push(ms);
      }
    }
  } finally {
    agent.destroy();
  }
  return { responses: spread(times.responses), chat: spread(times.chat) };
}

/** `connections` keep-alive clients posting whole (non-streamed) requests back to back for `ms`. */
async function wholeAnswers(server, route, connections, ms) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const body = route.body(false);
  const latencies = [];
  const cpuBefore = await server.cpuMicros();
  const started = nowMs();
  const deadline = started + ms;
  const loop = async () => {
    while (nowMs() < deadline) {
      const r = await timedPost({ agent, port: server.port, path: route.path, body });
      if (r.status !== 200) throw new Error(`${route.path} answered ${r.status}`);
      latencies.push(r.total);
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, loop));
    const elapsedMs = nowMs() - started;
    const cpuMicros = (await server.cpuMicros()) - cpuBefore;
    return { latencies, elapsedMs, cpuMicros };
  } finally {
    agent.destroy();
  }
}

async function measureWhole(S, server) {
  const names = ['responses', 'chat'];
  for (const name of names) await wholeAnswers(server, ROUTES[name], S.connections, S.warmupMs);
  const totals = Object.fromEntries(names.map((n) => [n, { latencies: [], ms: 0, cpu: 0 }]));
  for (let round = 0; round < 2; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const r = await wholeAnswers(server, ROUTES[name], S.connections, S.wholeMs / 2);
      const t = totals[name];
      t.latencies.push(...r.latencies);
      t.ms += r.elapsedMs;
      t.cpu += r.cpuMicros;
      process.stdout.write(
        `  round ${round + 1}/2 ${name} whole: ${fmt(r.latencies.length / (r.elapsedMs / 1000))} req/s\n`,
      );
    }
  }
  return Object.fromEntries(
    names.map((n) => {
      const t = totals[n];
      return [
        n,
        {
          ...spread(t.latencies),
          perSec: t.latencies.length / (t.ms / 1000),
          cpuPerRequest: t.cpu / t.latencies.length,
        },
      ];
    }),
  );
}

async function measureResponses({ quick = false } = {}) {
  const S = settings(quick);
  const streams = await measureStreams(S);
  const server = await startServer('responses', 'short');
  try {
    const firstToken = await measureFirstToken(S, server);
    const whole = await measureWhole(S, server);
    return { settings: S, streams, firstToken, whole, pinned: affinity(server.pid) };
  } finally {
    await server.stop();
  }
}

function responsesSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const [face, raw] = r.streams;
  const ft = r.firstToken;
  const w = r.whole;
  const streamTable = table(
    ['Server', 'events/response', 'events/s', 'responses/s', 'vs raw'],
    [face, raw].map((s) => [
      s.name === 'responses' ? 'Interlude POST /v1/responses (stream)' : 'raw node:http SSE (same events)',
      fmt(s.eventsPerRun),
      fmt(s.eventsPerSec),
      fmt(s.runsPerSec, 1),
      `${fmt(s.eventsPerSec / raw.eventsPerSec, 2)}×`,
    ]),
  );
  const firstTable = table(
    ['Time to the first token (streamed)', 'p50 ms', 'p99 ms', 'p50 vs chat', 'p99 vs chat'],
    [
      ['POST /v1/responses → first response.output_text.delta', ft.responses],
      ['POST /v1/chat/completions → first content chunk', ft.chat],
    ].map(([label, s]) => [
      label,
      fmt(s.p50, 3),
      fmt(s.p99, 3),
      `${fmt(s.p50 / ft.chat.p50, 2)}×`,
      `${fmt(s.p99 / ft.chat.p99, 2)}×`,
    ]),
  );
  const wholeTable = table(
    ['Whole answers (not streamed)', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'req/s vs chat'],
    [
      ['POST /v1/responses', w.responses],
      ['POST /v1/chat/completions', w.chat],
    ].map(([label, s]) => [
      label,
      fmt(s.perSec),
      fmt(s.p50, 2),
      fmt(s.p99, 2),
      fmt(s.cpuPerRequest, 1),
      `${fmt(s.perSec / w.chat.perSec, 2)}×`,
    ]),
  );
  const eventsRatio = face.eventsPerSec / raw.eventsPerSec;
  const firstRatio = Math.max(ft.responses.p50 / ft.chat.p50, ft.responses.p99 / ft.chat.p99);
  const targets = [
    ['Streamed events/s vs raw node:http ≥ 0.9×', eventsRatio >= 0.9],
    ['First token p50 and p99 vs chat completions ≤ 1.1×', firstRatio <= 1.1],
  ];
  const verdicts = targets.map(([t, ok]) => `${t}: ${ok ? 'PASS' : 'FAIL'}`).join('; ');
  const text = `${HEADING}

- Command: \`npm run bench\` (alone: \`node bench/run.js --only responses\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}; machine: ${env.cpu}, ${env.cores} cores, load average at start ${env.load}; Node ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'} (Interlude affinity seen: ${face.pinned})
- Streaming: a scripted workflow streaming \`chunk \` ${fmt(1000)} times; ${S.connections} keep-alive clients posting
  \`{"input": "x", "stream": true}\` back to back (stored, the default), ${S.streamMs / 1000} s per server in 2 rounds
  taken in turns. The raw baseline writes the same events (created, in_progress, item and part added, 1,000 deltas,
  their dones, completed), one \`JSON.stringify\` and one write each.
  Interlude's SSE writer joins the frames written in one tick into one socket write; the baseline writes each frame
  (as the AG-UI baseline does), which is why the face can pass it.
- First token and whole answers: a seven-token scripted answer; the same server serves both routes. First token: one
  keep-alive connection, ${fmt(S.ttft)} streamed requests per route after ${fmt(S.ttftWarmup)} uncounted, the routes in
  turns; ms from the end of the request to the chunk holding the first token. Whole answers: ${S.connections}
  keep-alive clients, ${S.wholeMs / 1000} s per route in 2 rounds taken in turns; server CPU from its process.
- Targets: ${verdicts}.

${streamTable}

${firstTable}

${wholeTable}
`;
  return { text, passed: targets.filter((t) => t[1]).length, total: targets.length };
}

module.exports = { measureResponses, responsesSection, HEADING };
