'use strict';
/**
 * `npm run bench`: Interlude against baselines measured in the same run, on the same machine.
 *
 *  1. JSON: POST /v1/workflow (echo workflow) against raw node:http, bare Express 5 and a bare
 *     NestJS 12 route, all under the same autocannon load. Ratios are to the bare NestJS route.
 *  2. Streaming: the scripted workflow streaming 1,000 SSE frames against a raw node:http SSE server
 *     writing the same frames. Time to first byte over sequential requests, and chunks per second.
 *  3. Human in the loop (bench/hitl.js): 10,000 executions waiting on a prompt: memory per waiting
 *     execution, status polls per second, time from an answer to the workflow's next event.
 *  4. WebSocket (bench/ws.js): memory per idle identified connection and streamed messages per second,
 *     on one connection and on 100, against a bare `ws` server.
 *  5. AG-UI (bench/agui.js): events/s of a 1,000-token run against raw node:http SSE, and resume → next
 *     event latency with 1,000 paused threads.
 *  6. A2A (bench/a2a.js): a blocking SendMessage round trip against POST /v1/workflow on the same server.
 *  7. Several replicas (bench/replicas.js): the PostgreSQL/Redis store on two `interlude serve` processes
 *     against the memory store: polls/s, answer → completed across replicas, bytes held per waiting
 *     execution in PostgreSQL and Redis, SIGKILL → orphans claimed.
 *  7. MCP server (bench/mcp.js): calls/s of the echo workflow as an MCP tool (the SDK's client,
 *     tools/call) against POST /v1/workflow on the same server.
 *  8. OpenAI Responses (bench/responses.js): events/s of a 1,000-token response against raw node:http SSE;
 *     time to the first token and whole answers against /v1/chat/completions on the same server.
 *  9. The shared store against memory (bench/shared-store.js): POST /v1/workflow (echo; scripted, no
 *     prompt) and status polls on one `interlude serve` per store, rounds in turns.
 * 10. Scale-out (bench/scale-out.js): 1, 2 and 3 replicas on the shared store; CPU per request per replica.
 * 11. Footprint (bench/footprint.js): bytes in Redis and PostgreSQL per execution waiting on a prompt.
 *
 * Every server runs in its own child process pinned to core 1; this process (the load) is pinned to
 * core 0 (when `taskset` exists). Server CPU time comes from the child's process.cpuUsage().
 *
 * Options: --quick (short smoke run, RESULTS.md untouched), --only json,stream,hitl,ws (just those parts;
 * only their sections of RESULTS.md are rewritten), --heap-snapshot (with hitl: V8 heap snapshots of
 * the server before and while it holds the waiting executions, bench/profiles/hitl-*.heapsnapshot, to
 * compare with bench/heap-summary.js),
 * --profile (record a V8 CPU profile of every server's measured window into bench/profiles/, RESULTS.md
 * untouched; skips hitl), then e.g.
 *   node bench/profile-summary.js bench/profiles/interlude-echo.cpuprofile --vs bench/profiles/nest.cpuprofile
 * The "other CPU" columns are CPU time used on the machine by anything but the server and this load
 * process during the window: a noise gauge.
 * Env: BENCH_CONNECTIONS, BENCH_DURATION, BENCH_WARMUP (seconds) override the JSON load.
 */
const { spawnSync, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const {
  JSON_PATH,
  JSON_REQUEST,
  JSON_RESPONSE,
  STREAM_PATH,
  STREAM_REQUEST,
  STREAM_CHUNKS,
  STREAM_DATA,
  checkStream,
} = require('./lib/shared');
const autocannon = require('autocannon');
const { timedPost, sequentialRuns, summarizeRuns, concurrentStreams, cannon } = require('./lib/clients');
const { ROOT, CLIENT_CORE, SERVER_CORE, TASKSET, startServer, affinity } = require('./lib/servers');
const hitl = require('./hitl');
const ws = require('./ws');
const jobs = require('./jobs');
const agui = require('./agui');
const a2a = require('./a2a');
const startup = require('./startup');
const replicas = require('./replicas');
const mcp = require('./mcp');
const responses = require('./responses');
const shared = require('./shared-store');
const scaleOut = require('./scale-out');
const scaleOutReport = require('./scale-out-section');
const footprint = require('./footprint');
const { fmt, ratio, table } = require('./lib/report');

const RESULTS = path.join(__dirname, 'RESULTS.md');
const PROFILES = path.join(__dirname, 'profiles');

const argv = process.argv.slice(2);
const args = new Set(argv);
const QUICK = args.has('--quick');
const PROFILE = args.has('--profile');
const HEAP_SNAPSHOT = args.has('--heap-snapshot');
const PARTS = [
  'json',
  'stream',
  'startup',
  'hitl',
  'ws',
  'jobs',
  'agui',
  'a2a',
  'replicas',
  'shared',
  'scaleout',
  'footprint',
  'mcp',
  'responses',
];
const ONLY = (() => {
  const at = argv.findIndex((a) => a === '--only' || a.startsWith('--only='));
  if (at < 0) return new Set(PROFILE ? ['json', 'stream'] : PARTS);
  const list = (argv[at].includes('=') ? argv[at].split('=')[1] : (argv[at + 1] ?? '')).split(',');
  const unknown = list.filter((p) => !PARTS.includes(p));
  if (unknown.length || list.length === 0)
    throw new Error(`--only takes a comma list of ${PARTS.join(', ')}; got ${list.join(',')}`);
  return new Set(list);
})();

const num = (name, fallback) => (process.env[name] ? Number(process.env[name]) : fallback);
const LOAD = {
  connections: num('BENCH_CONNECTIONS', 50),
  duration: num('BENCH_DURATION', QUICK ? 2 : 10),
  warmup: num('BENCH_WARMUP', QUICK ? 2 : 4), // Interlude's JIT needs ~3 s to reach its steady rate
};
/** Each server's measured time is split into this many rounds, taken in turns with the others. */
const ROUNDS = PROFILE ? 1 : 2;
const STREAM = {
  sequentialWarmup: QUICK ? 10 : 30,
  sequential: QUICK ? 50 : 200,
  sequentialRounds: PROFILE ? 1 : 4,
  connections: 10,
  warmupMs: QUICK ? 500 : 2000,
  durationMs: QUICK ? 2000 : 10000,
};

// ---------------------------------------------------------------------------------------------------
// Servers under test (bench/lib/servers.js starts them)

/** Busy CPU time of the whole machine (all cores, incl. steal) in µs, from /proc/stat. */
function machineBusyMicros() {
  try {
    const [, ...f] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = f;
    return ((user + nice + system + irq + softirq + (steal || 0)) * 1e6) / CLK_TCK;
  } catch {
    return NaN;
  }
}
const CLK_TCK = (() => {
  const r = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  return Number(r.stdout) || 100;
})();

/**
 * Runs `fn` as one measured window of `server`: its CPU time, the wall time, and the CPU time the
 * rest of the machine used meanwhile (all cores, minus the server and this load process).
 */
async function window(server, fn) {
  const busy0 = machineBusyMicros();
  const self0 = process.cpuUsage();
  const cpu0 = await server.cpuMicros();
  const t0 = process.hrtime.bigint();
  const result = await fn();
  const cpu1 = await server.cpuMicros();
  const wallMicros = Number(process.hrtime.bigint() - t0) / 1000;
  const self = process.cpuUsage(self0);
  const busy1 = machineBusyMicros();
  const serverMicros = cpu1 - cpu0;
  const otherMicros = Math.max(0, busy1 - busy0 - serverMicros - self.user - self.system);
  return { result, serverMicros, wallMicros, otherMicros };
}

/** Sums windows of one server across rounds. */
class Tally {
  serverMicros = 0;
  wallMicros = 0;
  otherMicros = 0;
  add(w) {
    this.serverMicros += w.serverMicros;
    this.wallMicros += w.wallMicros;
    this.otherMicros += w.otherMicros;
    return w.result;
  }
  /** Cores' worth of CPU used by everything else while this server was measured. */
  get otherCores() {
    return this.otherMicros / this.wallMicros;
  }
}

/** With --profile: a V8 CPU profile of the server's measured windows (one round, so one window). */
async function profiled(server, spec, fn) {
  if (!PROFILE) return fn();
  await server.profileStart();
  const result = await fn();
  fs.mkdirSync(PROFILES, { recursive: true });
  const suffix = spec.variant ? `-${spec.variant.replace(/,/g, '+')}` : '';
  const file = path.join(PROFILES, `${spec.name}${suffix}.cpuprofile`);
  await server.profileStop(file);
  spec.profile = file;
  return result;
}

/** Records what a profile covered, so profile-summary.js can report time per request or chunk. */
function describeProfile(spec, units, unit) {
  if (spec.profile)
    fs.writeFileSync(`${spec.profile}.meta`, JSON.stringify({ label: spec.label, units, unit }));
}

/** Round r visits the servers in order, the next round in reverse, and so on (drift hits all alike). */
const roundOrder = (list, r) => (r % 2 === 0 ? list : [...list].reverse());

// ---------------------------------------------------------------------------------------------------
// Measurements

const JSON_SERVERS = [
  { key: 'raw', label: 'raw node:http', name: 'raw-http' },
  { key: 'express', label: 'Express 5 (bare)', name: 'express' },
  { key: 'nest', label: 'NestJS 12 route (bare)', name: 'nest' },
  { key: 'interlude', label: 'Interlude /v1/workflow (echo)', name: 'interlude', variant: 'echo' },
  {
    key: 'interludeIdentified',
    label: 'Interlude /v1/workflow (echo), identified (session cookie)',
    name: 'interlude',
    variant: 'echo-identified',
    // Every request is a user's, as behind a corporate gateway: its trace owner is recorded.
    headers: { cookie: 'nat-session=alice' },
  },
  { key: 'nestInfo', label: 'NestJS 12 route + pino-http, info', name: 'nest', variant: 'info' },
  {
    key: 'interludeInfo',
    label: 'Interlude /v1/workflow (echo), LOG_LEVEL=info',
    name: 'interlude',
    variant: 'echo-info',
  },
  // BENCH_BASE_DIST=<another commit's dist/>: the same two routes built from it, measured in the same run.
  ...(process.env.BENCH_BASE_DIST
    ? [
        { key: 'base', label: 'base build: /v1/workflow (echo)', name: 'interlude', variant: 'echo@base' },
        {
          key: 'baseInfo',
          label: 'base build: /v1/workflow (echo), LOG_LEVEL=info',
          name: 'interlude',
          variant: 'echo-info@base',
        },
      ]
    : []),
];

const STREAM_SERVERS = [
  { key: 'raw', label: 'raw node:http SSE', name: 'raw-sse' },
  { key: 'interlude', label: 'Interlude /v1/workflow/stream', name: 'interlude', variant: 'stream' },
];

/** All JSON servers at once (idle ones cost nothing), measured in alternating rounds. */
async function measureJson(specs) {
  const load = { path: JSON_PATH, body: JSON_REQUEST, connections: LOAD.connections };
  const entries = [];
  try {
    for (const spec of specs) entries.push({ spec, server: await startServer(spec.name, spec.variant) });
    for (const { spec, server } of entries) {
      const check = await timedPost({
        port: server.port,
        path: JSON_PATH,
        body: JSON_REQUEST,
        headers: spec.headers,
        keepBody: true,
      });
      if (check.status !== 200 || check.body !== JSON_RESPONSE)
        throw new Error(
          `${spec.label} answered ${check.status} ${check.body}, expected 200 ${JSON_RESPONSE}`,
        );
      process.stdout.write(`  warm-up ${spec.label}\n`);
      await cannon({ ...load, headers: spec.headers, port: server.port, duration: LOAD.warmup });
    }
    const tallies = new Map(entries.map((e) => [e, { tally: new Tally(), results: [] }]));
    for (let r = 0; r < ROUNDS; r++) {
      for (const entry of roundOrder(entries, r)) {
        const { spec, server } = entry;
        const t = tallies.get(entry);
        const result = t.tally.add(
          await window(server, () =>
            profiled(server, spec, () =>
              cannon({ ...load, headers: spec.headers, port: server.port, duration: LOAD.duration / ROUNDS }),
            ),
          ),
        );
        t.results.push(result);
        process.stdout.write(
          `  round ${r + 1}/${ROUNDS} ${spec.label}: ${fmt(result.totalCompletedRequests / result.duration)} req/s\n`,
        );
      }
    }
    return entries.map((entry) => {
      const { spec, server } = entry;
      const { tally, results } = tallies.get(entry);
      const agg = autocannon.aggregateResult(results, {
        url: `http://127.0.0.1:${server.port}${JSON_PATH}`,
        connections: LOAD.connections,
      });
      const failures = agg.errors + agg.timeouts + agg.non2xx;
      if (failures > 0)
        throw new Error(
          `${spec.label}: ${agg.errors} errors, ${agg.timeouts} timeouts, ${agg.non2xx} non-2xx under load`,
        );
      const requests = results.reduce((sum, x) => sum + x.totalCompletedRequests, 0);
      const seconds = results.reduce((sum, x) => sum + x.duration, 0);
      describeProfile(spec, requests, 'request');
      return {
        ...spec,
        pinned: affinity(server.pid),
        requests,
        rps: requests / seconds,
        p50: agg.latency.p50,
        p99: agg.latency.p99,
        cpuPerReq: tally.serverMicros / requests,
        otherCores: tally.otherCores,
      };
    });
  } finally {
    await Promise.all(entries.map((e) => e.server.stop()));
  }
}

/** Starts a stream server and checks what it sends: STREAM_CHUNKS data frames, nothing else. */
async function startStream(spec) {
  const server = await startServer(spec.name, spec.variant);
  try {
    const target = { port: server.port, path: STREAM_PATH, body: STREAM_REQUEST };
    const check = await timedPost({ ...target, keepBody: true });
    const shape =
      check.status === 200 ? checkStream(check.body) : { ok: false, problem: `status ${check.status}` };
    if (!shape.ok)
      throw new Error(`${spec.label} did not stream ${STREAM_CHUNKS} data frames: ${shape.problem}`);
    // Every later response must be exactly as long (same frames, same ids).
    target.expectBytes = Buffer.byteLength(check.body);
    return {
      spec,
      server,
      target,
      ids: shape.ids,
      trace: shape.trace,
      execId: 'x-execution-id' in check.responseHeaders,
      frameBytes: target.expectBytes / STREAM_CHUNKS,
    };
  } catch (err) {
    await server.stop();
    throw err;
  }
}

/**
 * Interlude's stream first: the raw baseline is then started to write the same bytes (an `id:` line
 * per frame, an X-Execution-Id header, when Interlude sends them). Both are measured in alternating
 * rounds: sequential requests for TTFB, then connections streaming back to back for chunks/s.
 */
async function measureStreams([rawSpec, interludeSpec]) {
  const entries = [];
  try {
    const interlude = await startStream(interludeSpec);
    entries.push(interlude);
    const copy = [interlude.ids && 'ids', interlude.execId && 'execid', interlude.trace && 'trace']
      .filter(Boolean)
      .join(',');
    const raw = await startStream(copy ? { ...rawSpec, variant: copy } : rawSpec);
    entries.unshift(raw);
    if (raw.frameBytes !== interlude.frameBytes || raw.ids !== interlude.ids)
      throw new Error(
        `the raw baseline writes ${raw.frameBytes} bytes a frame, Interlude ${interlude.frameBytes}`,
      );

    const state = new Map(
      entries.map((e) => [
        e,
        {
          agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
          runs: [],
          seq: new Tally(),
          conc: new Tally(),
          streams: 0,
          concMs: 0,
        },
      ]),
    );
    for (const e of entries) {
      process.stdout.write(`  warm-up ${e.spec.label}\n`);
      const { agent } = state.get(e);
      await sequentialRuns({ ...e.target, agent, count: STREAM.sequentialWarmup });
      await concurrentStreams({ ...e.target, connections: STREAM.connections, durationMs: STREAM.warmupMs });
    }
    const perRound = STREAM.sequential / STREAM.sequentialRounds;
    for (let r = 0; r < STREAM.sequentialRounds; r++) {
      for (const e of roundOrder(entries, r)) {
        const st = state.get(e);
        const runs = st.seq.add(
          await window(e.server, () => sequentialRuns({ ...e.target, agent: st.agent, count: perRound })),
        );
        st.runs.push(...runs);
      }
    }
    for (let r = 0; r < ROUNDS; r++) {
      for (const e of roundOrder(entries, r)) {
        const st = state.get(e);
        const c = st.conc.add(
          await window(e.server, () =>
            profiled(e.server, e.spec, () =>
              concurrentStreams({
                ...e.target,
                connections: STREAM.connections,
                durationMs: STREAM.durationMs / ROUNDS,
              }),
            ),
          ),
        );
        st.streams += c.streams;
        st.concMs += c.elapsedMs;
        process.stdout.write(
          `  round ${r + 1}/${ROUNDS} ${e.spec.label}: ${fmt((c.streams * STREAM_CHUNKS) / (c.elapsedMs / 1000))} chunks/s\n`,
        );
      }
    }
    return entries.map((e) => {
      const st = state.get(e);
      st.agent.destroy();
      const seq = summarizeRuns(st.runs);
      const frames = st.streams * STREAM_CHUNKS;
      describeProfile(e.spec, frames, 'chunk');
      return {
        ...e.spec,
        pinned: affinity(e.server.pid),
        ids: e.ids,
        execId: e.execId,
        frameBytes: e.frameBytes,
        ...seq,
        seqChunksPerSec: (seq.count * STREAM_CHUNKS) / (seq.totalMs / 1000),
        seqOtherCores: st.seq.otherCores,
        concStreams: st.streams,
        concChunksPerSec: frames / (st.concMs / 1000),
        cpuPerChunk: st.conc.serverMicros / frames,
        otherCores: st.conc.otherCores,
      };
    });
  } finally {
    await Promise.all(entries.map((e) => e.server.stop()));
  }
}

// ---------------------------------------------------------------------------------------------------
// Reporting

function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    cpu = /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux: keep os.cpus()
  }
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    if (dirty.trim()) commit += ' (src/ modified)';
  } catch {
    // not a git checkout
  }
  return {
    date: new Date().toISOString(),
    cpu,
    cores: os.cpus().length, // not availableParallelism(): this process is pinned to one core
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    load: os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
    commit,
  };
}

function report(env, json, stream) {
  const by = (list, key) => list.find((r) => r.key === key);
  const nest = by(json, 'nest');
  const rawSse = by(stream, 'raw');
  const sse = by(stream, 'interlude');
  const interlude = by(json, 'interlude');
  const nestInfo = by(json, 'nestInfo');
  const interludeInfo = by(json, 'interludeInfo');
  const base = by(json, 'base');
  const baseInfo = by(json, 'baseInfo');
  const sseFrame = `${sse.ids ? 'id: <n>\\n' : ''}data: ${STREAM_DATA}\\n\\n`;

  const jsonTable = table(
    ['Server', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'req/s vs Nest', 'CPU vs Nest', 'other CPU'],
    json.map((r) => [
      r.label,
      fmt(r.rps),
      fmt(r.p50),
      fmt(r.p99),
      fmt(r.cpuPerReq, 1),
      ratio(r.rps, nest.rps),
      ratio(r.cpuPerReq, nest.cpuPerReq),
      fmt(r.otherCores, 2),
    ]),
  );
  const streamTable = table(
    [
      'Server',
      'TTFB p50 ms',
      'TTFB p99 ms',
      'headers p50 ms',
      'stream p50 ms',
      'chunks/s (1 client)',
      `chunks/s (${STREAM.connections} conns)`,
      'CPU µs/chunk',
      'other CPU (1 client / conns)',
    ],
    stream.map((r) => [
      r.label,
      fmt(r.ttfbP50, 3),
      fmt(r.ttfbP99, 3),
      fmt(r.headersP50, 3),
      fmt(r.streamP50, 2),
      fmt(r.seqChunksPerSec),
      fmt(r.concChunksPerSec),
      fmt(r.cpuPerChunk, 2),
      `${fmt(r.seqOtherCores, 2)} / ${fmt(r.otherCores, 2)}`,
    ]),
  );

  const targets = [
    [
      '`/v1/workflow` req/s ≥ 0.9× bare NestJS route (logging silent)',
      `${fmt(interlude.rps)} vs ${fmt(nest.rps)} = ${ratio(interlude.rps, nest.rps)}`,
      interlude.rps >= 0.9 * nest.rps,
    ],
    [
      '`/v1/workflow` CPU/req ≤ 1.15× bare NestJS route (logging silent)',
      `${fmt(interlude.cpuPerReq, 1)} vs ${fmt(nest.cpuPerReq, 1)} µs = ${ratio(interlude.cpuPerReq, nest.cpuPerReq)}`,
      interlude.cpuPerReq <= 1.15 * nest.cpuPerReq,
    ],
    [
      '`/v1/workflow` at LOG_LEVEL=info req/s ≥ 0.6× bare NestJS route (silent)',
      `${fmt(interludeInfo.rps)} vs ${fmt(nest.rps)} = ${ratio(interludeInfo.rps, nest.rps)} (vs bare + pino-http ${fmt(nestInfo.rps)}: ${ratio(interludeInfo.rps, nestInfo.rps)})`,
      interludeInfo.rps >= 0.6 * nest.rps,
    ],
    ['Stream TTFB p50 ≤ 1 ms', `${fmt(sse.ttfbP50, 3)} ms`, sse.ttfbP50 <= 1],
    ['Stream TTFB p99 ≤ 5 ms', `${fmt(sse.ttfbP99, 3)} ms`, sse.ttfbP99 <= 5],
    [
      'Stream TTFB p99 ≤ 1.2× raw node:http',
      `${fmt(sse.ttfbP99, 3)} vs ${fmt(rawSse.ttfbP99, 3)} ms = ${ratio(sse.ttfbP99, rawSse.ttfbP99)}`,
      sse.ttfbP99 <= 1.2 * rawSse.ttfbP99,
    ],
    [
      'Stream TTFB p50 ≤ 2× raw node:http',
      `${fmt(sse.ttfbP50, 3)} vs ${fmt(rawSse.ttfbP50, 3)} ms = ${ratio(sse.ttfbP50, rawSse.ttfbP50)}`,
      sse.ttfbP50 <= 2 * rawSse.ttfbP50,
    ],
    [
      'Stream TTFB p99 ≤ 2× raw node:http',
      `${fmt(sse.ttfbP99, 3)} vs ${fmt(rawSse.ttfbP99, 3)} ms = ${ratio(sse.ttfbP99, rawSse.ttfbP99)}`,
      sse.ttfbP99 <= 2 * rawSse.ttfbP99,
    ],
    [
      'Chunks/s ≥ 0.8× raw node:http (1 client, sequential)',
      `${fmt(sse.seqChunksPerSec)} vs ${fmt(rawSse.seqChunksPerSec)} = ${ratio(sse.seqChunksPerSec, rawSse.seqChunksPerSec)}`,
      sse.seqChunksPerSec >= 0.8 * rawSse.seqChunksPerSec,
    ],
    [
      `Chunks/s ≥ 0.8× raw node:http (${STREAM.connections} connections)`,
      `${fmt(sse.concChunksPerSec)} vs ${fmt(rawSse.concChunksPerSec)} = ${ratio(sse.concChunksPerSec, rawSse.concChunksPerSec)}`,
      sse.concChunksPerSec >= 0.8 * rawSse.concChunksPerSec,
    ],
    // With BENCH_BASE_DIST: the same routes built from another commit (issue 26: within 5% of before).
    ...[
      [interlude, base, 'logging silent'],
      [interludeInfo, baseInfo, 'LOG_LEVEL=info'],
    ]
      .filter(([, before]) => before)
      .map(([now, before, how]) => [
        `\`/v1/workflow\` req/s within 5% of the base build (${how})`,
        `${fmt(now.rps)} vs ${fmt(before.rps)} = ${ratio(now.rps, before.rps)}; CPU ${fmt(now.cpuPerReq, 1)} vs ${fmt(before.cpuPerReq, 1)} µs`,
        now.rps >= 0.95 * before.rps,
      ]),
  ];
  const targetTable = table(
    ['Target', 'Measured', 'Result'],
    targets.map(([t, m, ok]) => [t, m, ok ? 'PASS' : '**FAIL**']),
  );

  const pin = TASKSET
    ? `servers pinned to core ${SERVER_CORE} (affinity seen: ${[...new Set([...json, ...stream].map((r) => r.pinned))].join(', ')}), load generator to core ${CLIENT_CORE}`
    : 'not pinned (taskset not found)';
  const text = `## Latest run

- Command: \`npm run bench\`${QUICK ? ' (--quick)' : ''}
- Date: ${env.date}
- Machine: ${env.cpu}, ${env.cores} cores, ${env.os}, load average at start ${env.load}
- Node: ${env.node}; commit ${env.commit}
- Pinning: ${pin}
${process.env.BENCH_BASE_DIST ? `- "base build" rows: the same server built from ${process.env.BENCH_BASE_COMMIT ?? process.env.BENCH_BASE_DIST} (\`BENCH_BASE_DIST=<its dist/>\`), measured in the same run.\n` : ''}- Rounds: each server's measured time is split into rounds taken in turns with the other servers of its
  table (order reversed every other round), so slow drift in the machine's load hits all of them alike.
- JSON load: autocannon, ${LOAD.connections} connections, \`POST ${JSON_PATH}\` \`${JSON_REQUEST}\` → \`${JSON_RESPONSE}\`;
  per server ${LOAD.warmup} s warm-up, then ${LOAD.duration} s measured in ${ROUNDS} rounds of ${LOAD.duration / ROUNDS} s.
- Stream load: \`POST ${STREAM_PATH}\` \`${STREAM_REQUEST}\`, ${STREAM_CHUNKS} frames \`${sseFrame}\` per response
  (${fmt(sse.frameBytes, 1)} bytes a frame${sse.execId ? ', `X-Execution-Id` header' : ''}; the raw baseline writes the same bytes).
  TTFB = time from ending the request to the first body chunk (raw \`http.request\`, one keep-alive
  connection, ${STREAM.sequential} sequential requests in ${STREAM.sequentialRounds} rounds after ${STREAM.sequentialWarmup} warm-up); "headers" = time to the response headers.
  Chunks/s (1 client) = frames / summed request time of those sequential requests; chunks/s (${STREAM.connections} conns) =
  frames / wall time with ${STREAM.connections} connections streaming back to back, ${STREAM.durationMs / 1000} s in ${ROUNDS} rounds after ${STREAM.warmupMs / 1000} s warm-up.
- CPU = server process user+system time (process.cpuUsage() in the child) over the measured windows, per request or per frame
  (for streams: the ${STREAM.connections}-connection windows). "other CPU" = cores' worth of CPU used by everything except the
  server and the load generator during those windows (from /proc/stat); well above 0 means the numbers are disturbed.

### JSON route

${jsonTable}

### Streaming (${STREAM_CHUNKS} chunks)

${streamTable}

### Targets

${targetTable}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

const INTRO = `# Interlude benchmark

Run with \`npm run bench\` (builds, then runs \`bench/run.js\`; about 20 minutes on a quiet 2-core machine, 11 of
them the scale-out part). The parts on the shared store (replicas, shared, scaleout, footprint) need
\`DATABASE_URL\` and \`REDIS_URL\`; without them their sections say "Not measured". \`node bench/run.js --only
a,b\` runs some of the parts (${PARTS.join(', ')}) and rewrites only their sections. The machine is
shared and noisy, so every figure is compared with baselines measured in the same run, with the
same load, rather than with absolute numbers from another day. \`node bench/run.js --profile\` runs
every server under the V8 profiler (numbers then are not representative) and
\`node bench/profile-summary.js bench/profiles/interlude-echo.cpuprofile --vs bench/profiles/nest.cpuprofile\`
lists where the time goes, per request, against the bare NestJS route (\`interlude-stream\` against
\`raw-sse*\`: per chunk). \`node bench/run.js --only hitl\` runs only the human-in-the-loop part (add
\`--heap-snapshot\` for heap snapshots of the server before and while it holds the waiting
executions, compared by \`bench/heap-summary.js\`).

Reading the numbers:

- JSON p50/p99 are autocannon's latencies, in whole milliseconds.
- Both the scripted workflow and the raw SSE baseline produce their 1,000 frames synchronously, and
  Node's \`res.write\` corks the socket until the next tick: the first body byte leaves only once the
  whole burst has been written. TTFB is therefore close to the time to write the burst, for raw
  node:http too; "headers" shows the request-to-headers part on its own.
- "other CPU" is how many cores' worth of CPU the rest of the machine used during a measured window
  (from /proc/stat, minus the server and the load generator). Near 0 is a clean window; a run with
  high values there should be repeated before its ratios are trusted.

`;

/**
 * Puts `section` (which starts with its `## ` heading) into RESULTS.md in place of the section whose
 * heading matches `heading`, up to the next `## ` heading; at the end when there is none yet.
 */
function writeSection(heading, section) {
  let before = INTRO;
  let after = '';
  if (fs.existsSync(RESULTS)) {
    const old = fs.readFileSync(RESULTS, 'utf8');
    const start = old.search(heading);
    if (start >= 0) {
      before = old.slice(0, start);
      const rest = old.slice(start + 1);
      const next = rest.search(/^## /m);
      after = next >= 0 ? `\n${rest.slice(next)}` : '';
    } else {
      before = `${old.trimEnd()}\n\n`;
    }
  }
  fs.writeFileSync(RESULTS, `${before}${section}${after}`);
}

// ---------------------------------------------------------------------------------------------------

async function main() {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'main.js')))
    throw new Error('dist/ is missing: run `npm run build`');
  if (ONLY.has('json') !== ONLY.has('stream'))
    throw new Error('json and stream make one section of RESULTS.md: --only takes both or neither');
  const env = machine();
  console.log(`Interlude bench — ${env.cpu}, ${env.cores} cores, Node ${env.node}, load ${env.load}`);
  console.log(
    TASKSET
      ? `load generator on core ${CLIENT_CORE}, servers on core ${SERVER_CORE}`
      : 'taskset missing: not pinned',
  );
  const sections = [];

  if (ONLY.has('json')) {
    console.log(`JSON: ${JSON_SERVERS.map((s) => s.label).join(', ')}`);
    const json = await measureJson(JSON_SERVERS);
    console.log(`Streams: ${STREAM_SERVERS.map((s) => s.label).join(', ')}`);
    const stream = await measureStreams(STREAM_SERVERS);
    sections.push({ heading: /^## Latest run\b/m, ...report(env, json, stream) });
  }

  if (ONLY.has('startup')) {
    console.log('Start-up: spawn → first 200 on /health and idle RSS, against a bare NestJS app');
    const result = await startup.measureStartup({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}` : 'not pinned (taskset not found)';
    sections.push({
      heading: new RegExp(`^${startup.HEADING}\\b`, 'm'),
      ...startup.startupSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('hitl')) {
    console.log(
      'Human in the loop: Interlude with waiting executions; status polls also against a bare NestJS GET route',
    );
    const result = await hitl.measureHitl({
      quick: QUICK,
      heapSnapshots: HEAP_SNAPSHOT ? PROFILES : undefined,
    });
    const pin = TASKSET
      ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}`
      : 'not pinned (taskset not found)';
    const heading = new RegExp(`^${hitl.HEADING}\\b`, 'm');
    sections.push({ heading, ...hitl.hitlSection(env, result, { quick: QUICK, pin }) });
  }

  if (ONLY.has('ws')) {
    console.log('WebSocket: Interlude against a bare ws server (idle memory, streamed messages per second)');
    const result = await ws.measureWs({ quick: QUICK });
    const pin = TASKSET
      ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}`
      : 'not pinned (taskset not found)';
    sections.push({
      heading: new RegExp(`^${ws.HEADING}\\b`, 'm'),
      ...ws.wsSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('jobs')) {
    console.log(
      'Async jobs: accepted and completed per second, in the server and on two workers; status polls',
    );
    const result = await jobs.measureJobs({ quick: QUICK });
    const pin = TASKSET
      ? `server and workers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}`
      : 'not pinned (taskset not found)';
    sections.push({
      heading: new RegExp(`^${jobs.HEADING}\\b`, 'm'),
      ...jobs.jobsSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('agui')) {
    console.log(
      'AG-UI: events/s of a 1,000-token run against raw node:http SSE; resume → next event latency',
    );
    const result = await agui.measureAgui({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${agui.HEADING}\\b`, 'm'),
      ...agui.aguiSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('a2a')) {
    console.log('A2A: a blocking SendMessage against POST /v1/workflow on the same server');
    const result = await a2a.measureA2a({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${a2a.HEADING}\\b`, 'm'),
      ...a2a.a2aSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('replicas')) {
    console.log(
      'Several replicas: PostgreSQL/Redis store on two server processes against the memory store (polls, answer → completed, bytes held, SIGKILL → claimed)',
    );
    const result = await replicas.measureReplicas({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${replicas.HEADING}\\b`, 'm'),
      ...replicas.replicasSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('mcp')) {
    console.log('MCP server: tools/call of the echo workflow (SDK client) against POST /v1/workflow');
    const result = await mcp.measureMcp({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${mcp.HEADING}\\b`, 'm'),
      ...mcp.mcpSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('responses')) {
    console.log(
      'OpenAI Responses: events/s of a 1,000-token response against raw node:http SSE; first token and whole answers against /v1/chat/completions',
    );
    const result = await responses.measureResponses({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${responses.HEADING}\\b`, 'm'),
      ...responses.responsesSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('shared')) {
    console.log('The shared store against memory: /v1/workflow and status polls, one server per store');
    const result = await shared.measureShared({ quick: QUICK });
    const pin = TASKSET ? `servers pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}` : '';
    sections.push({
      heading: new RegExp(`^${shared.HEADING}\\b`, 'm'),
      ...shared.sharedSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('scaleout')) {
    console.log('Scale-out: 1, 2 and 3 replicas on the shared store, CPU per request per replica');
    const result = await scaleOut.measureScaleOut({ quick: QUICK });
    const pin = TASKSET
      ? `replicas pinned to core ${SERVER_CORE}, load generator to core ${CLIENT_CORE}`
      : '';
    sections.push({
      heading: new RegExp(`^${scaleOutReport.HEADING}\\b`, 'm'),
      ...scaleOutReport.scaleOutSection(env, result, { quick: QUICK, pin }),
    });
  }

  if (ONLY.has('footprint')) {
    console.log('Footprint: bytes in Redis and PostgreSQL per execution waiting on a prompt');
    const result = await footprint.measureFootprint({ quick: QUICK });
    sections.push({
      heading: new RegExp(`^${footprint.HEADING}\\b`, 'm'),
      ...footprint.footprintSection(env, result, { quick: QUICK }),
    });
  }

  for (const { text } of sections) console.log(`\n${text}`);
  if (QUICK || PROFILE) {
    console.log(`(${QUICK ? '--quick' : '--profile'}: ${path.relative(ROOT, RESULTS)} left unchanged)`);
    if (PROFILE) console.log(`profiles in ${path.relative(ROOT, PROFILES)}/`);
  } else {
    for (const { heading, text } of sections) writeSection(heading, text);
    const passed = sections.reduce((sum, s) => sum + s.passed, 0);
    const total = sections.reduce((sum, s) => sum + s.total, 0);
    console.log(`Wrote ${path.relative(ROOT, RESULTS)} — ${passed}/${total} targets met.`);
  }
}

if (TASKSET && !process.env.BENCH_CLIENT_PINNED) {
  // Re-run this script pinned to the load generator's core; the servers get the other one.
  const pinned = spawnSync(
    TASKSET,
    ['-c', CLIENT_CORE, process.execPath, path.join(__dirname, 'run.js'), ...process.argv.slice(2)],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_CLIENT_PINNED: '1' },
    },
  );
  process.exit(pinned.status ?? 1);
} else {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
