'use strict';
/**
 * The A2A rows of `npm run bench` (`--only a2a`):
 *  1. a blocking `SendMessage` (JSON-RPC at /a2a, the echo workflow, the task completed in the answer)
 *     against `POST /v1/workflow` running the same workflow, on the same server process, under the same
 *     autocannon load, taken in turns;
 *  2. `SendStreamingMessage` of the scripted workflow streaming 1,000 tokens, read with the official
 *     @a2a-js/sdk client, against a raw node:http server writing the same JSON-RPC SSE events (bench/
 *     servers/raw-a2a.js), the same client, in rounds taken in turns.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomUUID } = require('node:crypto');
const { JSON_PATH, JSON_REQUEST, JSON_RESPONSE, STREAM_CHUNKS } = require('./lib/shared');
const { startServer, affinity } = require('./lib/servers');
const { cannon, timedPost, nowMs } = require('./lib/clients');
const autocannon = require('autocannon');
const { Role, TaskState } = require('@a2a-js/sdk');
const { ClientFactory } = require('@a2a-js/sdk/client');
const { fmt, table } = require('./lib/report');

const HEADING = '## A2A';
const A2A_PATH = '/a2a';
const A2A_HEADERS = { 'a2a-version': '1.0' };
const SEND = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'SendMessage',
  params: { message: { messageId: 'bench', role: 'ROLE_USER', parts: [{ text: 'hello world' }] } },
});

function settings(quick) {
  return {
    connections: 50,
    warmupSec: quick ? 1 : 3,
    roundSec: quick ? 2 : 5,
    rounds: 2,
    stream: { connections: 10, warmupMs: quick ? 500 : 2000, roundMs: quick ? 1000 : 5000 },
  };
}

async function check(port) {
  const workflow = await timedPost({ port, path: JSON_PATH, body: JSON_REQUEST, keepBody: true });
  if (workflow.status !== 200 || workflow.body !== JSON_RESPONSE)
    throw new Error(`/v1/workflow answered ${workflow.status} ${workflow.body}`);
  const a2a = await timedPost({ port, path: A2A_PATH, body: SEND, headers: A2A_HEADERS, keepBody: true });
  const task = JSON.parse(a2a.body).result?.task;
  if (
    task?.status?.state !== 'TASK_STATE_COMPLETED' ||
    !JSON.stringify(task.artifacts).includes('hello world')
  )
    throw new Error(`SendMessage answered ${a2a.status} ${a2a.body.slice(0, 300)}`);
}

async function measureA2a({ quick = false } = {}) {
  const S = settings(quick);
  const send = await measureSend(S);
  const stream = await measureStream(S.stream);
  const loadAfter = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  return { ...send, stream, loadAfter };
}

async function measureSend(S) {
  const server = await startServer('interlude', 'echo');
  try {
    await check(server.port);
    const routes = [
      { label: 'POST /v1/workflow', path: JSON_PATH, body: JSON_REQUEST, headers: {} },
      { label: 'A2A SendMessage (blocking)', path: A2A_PATH, body: SEND, headers: A2A_HEADERS },
    ];
    const load = (r, duration) =>
      cannon({
        port: server.port,
        path: r.path,
        body: r.body,
        headers: r.headers,
        connections: S.connections,
        duration,
      });
    for (const r of routes) {
      await load(r, S.warmupSec);
      r.results = [];
    }
    for (let round = 0; round < S.rounds; round++) {
      for (const r of round % 2 ? [...routes].reverse() : routes) {
        const result = await load(r, S.roundSec);
        r.results.push(result);
        process.stdout.write(
          `  round ${round + 1}/${S.rounds} ${r.label}: ${fmt(result.totalCompletedRequests / result.duration)} req/s\n`,
        );
      }
    }
    return {
      settings: S,
      pinned: affinity(server.pid),
      routes: routes.map((r) => {
        const agg = autocannon.aggregateResult(r.results, {
          url: `http://127.0.0.1:${server.port}${r.path}`,
          connections: S.connections,
        });
        const failures = agg.errors + agg.timeouts + agg.non2xx;
        if (failures > 0) throw new Error(`${r.label}: ${failures} failed requests under load`);
        const requests = r.results.reduce((sum, x) => sum + x.totalCompletedRequests, 0);
        const seconds = r.results.reduce((sum, x) => sum + x.duration, 0);
        return { label: r.label, perSec: requests / seconds, p50: agg.latency.p50, p99: agg.latency.p99 };
      }),
    };
  } finally {
    await server.stop();
  }
}

const TOKEN = 'chunk ';

/** A fresh streaming request of one user message (the scripted workflow ignores what it says). */
const streamRequest = () => ({
  tenant: '',
  message: {
    messageId: randomUUID(),
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: 'go' }, mediaType: 'text/plain', filename: '', metadata: undefined },
    ],
    taskId: '',
    contextId: '',
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  },
  configuration: undefined,
  metadata: undefined,
});

/** One streamed task through the SDK client: its events, checked to carry the 1,000 tokens and end completed. */
async function streamOnce(client) {
  let events = 0;
  let text = '';
  let last;
  for await (const update of client.sendMessageStream(streamRequest())) {
    events++;
    last = update.payload;
    if (last?.$case === 'artifactUpdate')
      for (const p of last.value.artifact?.parts ?? [])
        if (p.content?.$case === 'text') text += p.content.value;
  }
  const state = last?.$case === 'statusUpdate' ? last.value.status?.state : undefined;
  if (state !== TaskState.TASK_STATE_COMPLETED || text !== TOKEN.repeat(STREAM_CHUNKS))
    throw new Error(`a stream ended ${last?.$case} ${state} with ${text.length} characters of output`);
  return events;
}

/** `connections` clients' loops streaming back to back for `durationMs`. */
async function sdkStreams(client, { connections, durationMs }) {
  const started = nowMs();
  const deadline = started + durationMs;
  let runs = 0;
  let events = 0;
  const loop = async () => {
    while (nowMs() < deadline) {
      const n = await streamOnce(client);
      events += n;
      runs++;
    }
  };
  await Promise.all(Array.from({ length: connections }, loop));
  return { runs, events, ms: nowMs() - started };
}

/**
 * Interlude's stream is captured first (raw HTTP), and the raw baseline started to replay the same
 * events; both are then read with the same SDK client, a warm-up each and two rounds taken in turns.
 */
async function measureStream(S) {
  const entries = [];
  const capture = path.join(os.tmpdir(), `interlude-bench-a2a-${process.pid}.json`);
  try {
    const interlude = await startServer('interlude', 'stream');
    entries.push({ label: 'Interlude A2A SendStreamingMessage', server: interlude });
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'SendStreamingMessage',
      params: { message: { messageId: 'capture', role: 'ROLE_USER', parts: [{ text: 'go' }] } },
    });
    const sent = await timedPost({
      port: interlude.port,
      path: A2A_PATH,
      body,
      headers: A2A_HEADERS,
      keepBody: true,
    });
    const results = sent.body
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice('data: '.length)).result);
    const card = await (
      await globalThis.fetch(`http://127.0.0.1:${interlude.port}/.well-known/agent-card.json`)
    ).json();
    fs.writeFileSync(capture, JSON.stringify({ card, results }));
    entries.unshift({
      label: 'raw node:http SSE (same events)',
      server: await startServer('raw-a2a', capture),
    });
    for (const e of entries) {
      e.client = await new ClientFactory().createFromUrl(`http://127.0.0.1:${e.server.port}`);
      e.eventsPerRun = await streamOnce(e.client);
      process.stdout.write(`  warm-up ${e.label}\n`);
      await sdkStreams(e.client, { connections: S.connections, durationMs: S.warmupMs });
      Object.assign(e, { runs: 0, events: 0, ms: 0 });
    }
    for (let round = 0; round < 2; round++) {
      for (const e of round % 2 ? [...entries].reverse() : entries) {
        const r = await sdkStreams(e.client, { connections: S.connections, durationMs: S.roundMs });
        e.runs += r.runs;
        e.events += r.events;
        e.ms += r.ms;
        process.stdout.write(
          `  round ${round + 1}/2 ${e.label}: ${fmt(r.events / (r.ms / 1000))} events/s\n`,
        );
      }
    }
    return {
      settings: S,
      rows: entries.map((e) => ({
        label: e.label,
        pinned: affinity(e.server.pid),
        eventsPerRun: e.eventsPerRun,
        tasksPerSec: e.runs / (e.ms / 1000),
        eventsPerSec: e.events / (e.ms / 1000),
      })),
    };
  } finally {
    await Promise.all(entries.map((e) => e.server.stop()));
    fs.rmSync(capture, { force: true });
  }
}

function a2aSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const [workflow] = r.routes;
  const rows = r.routes.map((x) => [
    x.label,
    fmt(x.perSec),
    fmt(x.p50, 1),
    fmt(x.p99, 1),
    `${fmt(x.perSec / workflow.perSec, 2)}×`,
  ]);
  const text = `${HEADING}

- Command: \`npm run bench\` (alone: \`node bench/run.js --only a2a\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}; machine: ${env.cpu}, ${env.cores} cores, load average at start ${env.load}, at the end ${r.loadAfter} (a shared machine: the ratios, taken in the same run, are what count); Node ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'} (Interlude affinity seen: ${r.pinned})
- One Interlude process (echo workflow, memory store); ${S.connections} autocannon connections, ${S.rounds} rounds of
  ${S.roundSec} s per route taken in turns. A blocking \`SendMessage\` answers the completed task (a JSON-RPC
  envelope, the artifact and the history); each one is an execution whose record is kept for
  \`execution_ttl_seconds\`, as every task must be readable with \`GetTask\`. No request failed.

${table(['Route', 'req/s', 'p50 ms', 'p99 ms', 'vs /v1/workflow'], rows)}
${streamSection(r.stream)}`;
  return { text, passed: 0, total: 0 };
}

function streamSection(st) {
  const S = st.settings;
  const raw = st.rows.find((x) => x.label.startsWith('raw'));
  const rows = st.rows.map((x) => [
    x.label,
    fmt(x.eventsPerRun),
    fmt(x.tasksPerSec, 1),
    fmt(x.eventsPerSec),
    fmt(x.tasksPerSec * STREAM_CHUNKS),
    `${fmt(x.eventsPerSec / raw.eventsPerSec, 2)}×`,
  ]);
  return `
Streamed: \`SendStreamingMessage\` of the scripted workflow streaming ${fmt(STREAM_CHUNKS)} tokens, read with the
official \`@a2a-js/sdk\` client (\`ClientFactory.createFromUrl\`, JSON-RPC), ${S.connections} streams back to back, a
${S.warmupMs / 1000} s warm-up each, then 2 rounds of ${S.roundMs / 1000} s each taken in turns. The baseline
(\`bench/servers/raw-a2a.js\`) is plain node:http writing the events Interlude sent for one task, one
\`JSON.stringify\` and one write each, read by the same client. Interlude sends the task, \`working\`, each
output chunk as an artifact update (the task is followed from before its workflow runs, so every chunk
is seen as it comes) and \`completed\`; each stream is checked to end completed with all the tokens. Servers pinned as above (affinity seen: ${st.rows.map((x) => x.pinned).join(', ')}).

${table(['Server', 'events/task', 'tasks/s', 'events/s', 'tokens/s', 'vs raw SSE'], rows)}
`;
}

module.exports = { measureA2a, a2aSection, HEADING };
