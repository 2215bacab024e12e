'use strict';
/**
 * WebSocket face: Interlude's gateway against a bare `ws` server (bench/servers/raw-ws.js) in the same run.
 *
 *  1. Memory: WS.idle connections opened with `?session=<id>` (so each is an identified session) and left
 *     idle; the server's process.memoryUsage() after a full GC before and after, over the count.
 *  2. Messages per second: a `user_message` (generate_stream) answered with 1,000 `system_response_message`
 *     chunks and the `complete` message, again and again, on one connection and on 100 at once. The raw
 *     server answers each message with 1,000 prebuilt frames of the same size.
 *
 * Run by `npm run bench` or alone with `node bench/run.js --only ws`; --quick opens fewer connections.
 */
const WebSocket = require('ws');
const { nowMs } = require('./lib/clients');
const { STREAM_CHUNKS } = require('./lib/shared');
const { startServer, affinity } = require('./lib/servers');
const { fmt, kib, mib, ratio, table } = require('./lib/report');

const HEADING = '## WebSocket';

function settings(quick) {
  return {
    idle: quick ? 2_000 : 10_000,
    /** Connections opened and closed first (JIT, lazy state) before the first memory sample. */
    warmup: quick ? 100 : 500,
    opening: 200,
    streamWarmupMs: quick ? 1_000 : 2_000,
    streamMs: quick ? 2_000 : 6_000,
    wide: 100,
  };
}

const USER_MESSAGE = JSON.stringify({
  type: 'user_message',
  schema_type: 'generate_stream',
  id: 'bench-message',
  conversation_id: 'bench-conversation',
  content: { messages: [{ role: 'user', content: [{ type: 'text', text: 'go' }] }] },
});

function connect(port, session) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/websocket?session=${session}`, {
      perMessageDeflate: false,
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

async function openMany(port, count, prefix, concurrency) {
  const sockets = [];
  for (let i = 0; i < count; i += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, count - i) }, (_, j) =>
      connect(port, `${prefix}-${i + j}`),
    );
    sockets.push(...(await Promise.all(batch)));
  }
  return sockets;
}

async function closeAll(sockets) {
  await Promise.all(sockets.map((ws) => new Promise((resolve) => (ws.once('close', resolve), ws.close()))));
}

async function idleMemory(server, port, S) {
  await closeAll(await openMany(port, S.warmup, 'warm', S.opening));
  const before = (await server.memory()).usage;
  const sockets = await openMany(port, S.idle, 'user', S.opening);
  await new Promise((r) => setTimeout(r, 500));
  const after = (await server.memory()).usage;
  await closeAll(sockets);
  const per = (key) => (after[key] - before[key]) / S.idle;
  return { before, after, heapPer: per('heapUsed'), rssPer: per('rss'), externalPer: per('external') };
}

/** Streams answers back to back on `connections` sockets; chunk messages received per second. */
async function streamRate(port, connections, S) {
  const sockets = await openMany(port, connections, `stream-${connections}`, S.opening);
  let counting = false;
  let chunks = 0;
  let running = true;
  const loops = sockets.map(
    (ws) =>
      new Promise((resolve, reject) => {
        ws.on('message', (data) => {
          const text = data.toString();
          if (text.includes('"status":"complete"')) {
            if (running) ws.send(USER_MESSAGE);
            else resolve();
          } else if (counting && text.includes('"in_progress"')) {
            chunks++;
          }
        });
        ws.once('error', reject);
        ws.send(USER_MESSAGE);
      }),
  );
  await new Promise((r) => setTimeout(r, S.streamWarmupMs));
  counting = true;
  const t0 = nowMs();
  await new Promise((r) => setTimeout(r, S.streamMs));
  counting = false;
  const seconds = (nowMs() - t0) / 1000;
  running = false;
  await Promise.all(loops);
  await closeAll(sockets);
  return chunks / seconds;
}

async function measureServer(name, variant, S) {
  const server = await startServer(name, variant, { nodeArgs: ['--expose-gc'] });
  try {
    const memory = await idleMemory(server, server.port, S);
    const one = await streamRate(server.port, 1, S);
    const wide = await streamRate(server.port, S.wide, S);
    return { memory, one, wide, pinned: affinity(server.pid) };
  } finally {
    await server.stop();
  }
}

async function measureWs({ quick }) {
  const S = settings(quick);
  const log = (line) => console.log(`  ${line}`);
  const raw = await measureServer('raw-ws', undefined, S);
  log(`raw ws: ${kib(raw.memory.rssPer)} rss per idle connection, ${fmt(raw.one)} / ${fmt(raw.wide)} msgs/s`);
  const interlude = await measureServer('interlude', 'ws', S);
  log(
    `Interlude: ${kib(interlude.memory.rssPer)} rss per idle connection, ${fmt(interlude.one)} / ${fmt(interlude.wide)} msgs/s`,
  );
  return { settings: S, raw, interlude };
}

/** The RESULTS.md section for a measureWs() result; `env` as run.js's machine(). */
function wsSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const count = fmt(S.idle);
  const row = (label, m) => [
    label,
    `${mib(m.before.heapUsed)} → ${mib(m.after.heapUsed)}`,
    `${fmt(m.heapPer)} B`,
    `${fmt(m.externalPer)} B`,
    `${fmt(m.rssPer)} B (${kib(m.rssPer)})`,
  ];
  const memoryTable = table(
    ['Server', 'heapUsed (after GC)', 'heap per conn.', 'external per conn.', 'rss per conn.'],
    [row('raw ws', r.raw.memory), row('Interlude', r.interlude.memory)],
  );
  const rateTable = table(
    ['Server', '1 connection msgs/s', `${S.wide} connections msgs/s`, 'vs raw (1)', `vs raw (${S.wide})`],
    [r.raw, r.interlude].map((m, i) => [
      i === 0 ? 'raw ws' : 'Interlude',
      fmt(m.one),
      fmt(m.wide),
      ratio(m.one, r.raw.one),
      ratio(m.wide, r.raw.wide),
    ]),
  );
  const m = r.interlude.memory;
  const perConnection = Math.max(m.rssPer, m.heapPer + m.externalPer);
  const perGiB = (1024 * 1024 * 1024) / perConnection;
  const targets = [
    [
      'Memory per idle identified connection ≤ 25 KiB (≥ 40,000 per GiB)',
      `${kib(perConnection)} (${fmt(perGiB)} per GiB)`,
      perConnection <= 25 * 1024,
    ],
  ];
  const targetTable = table(
    ['Target', 'Measured', 'Result'],
    targets.map(([t, meas, ok]) => [t, meas, ok ? 'PASS' : '**FAIL**']),
  );
  const text = `${HEADING} (${count} idle connections; streamed answers)

- Command: \`npm run bench\` (alone: \`node bench/run.js --only ws\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}
- Machine: ${env.cpu}, ${env.cores} cores, ${env.os}, load average at start ${env.load}
- Node: ${env.node}; commit ${env.commit}
- Pinning: ${pin || 'not pinned'} (Interlude affinity seen: ${r.interlude.pinned})
- Memory: ${count} connections to \`/websocket?session=user-<i>\` (each an identified \`nat-session\` user),
  opened ${S.opening} at a time after ${fmt(S.warmup)} opened and closed, all from one address (its cap on
  open sockets, \`websocket_max_connections_per_address\`, raised to 20,000); the server child runs with
  \`--expose-gc\` and samples \`process.memoryUsage()\` after \`global.gc()\` before and after. Per connection
  = difference / ${count}; the target takes the larger of rss and heap + external.
- Messages: a \`user_message\` (\`generate_stream\`) answered by the scripted workflow streaming ${fmt(STREAM_CHUNKS)}
  chunks (step adaptor off) as \`system_response_message\`s, then \`complete\` and the trace message; the next
  \`user_message\` goes out when \`complete\` arrives. ${fmt(S.streamMs / 1000)} s counted after ${fmt(S.streamWarmupMs / 1000)} s
  of warm-up. The raw server answers each message with ${fmt(STREAM_CHUNKS)} prebuilt frames of the same size.

${memoryTable}

${rateTable}

${targetTable}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

module.exports = { measureWs, wsSection, HEADING };
