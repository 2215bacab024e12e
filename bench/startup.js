'use strict';
/**
 * Start-up (bench/run.js --only startup): time from spawning a server to its first 200 on
 * `GET /health`, and its resident memory once idle, for a bare NestJS app with one route, Interlude
 * with config/default.yml (`interlude serve`, LOG_LEVEL=info to a pipe), and Interlude with a config
 * that uses every optional feature (PostgreSQL, Redis execution store, BullMQ, JWT, an OpenAI LLM, the
 * calculator, OpenTelemetry export) when PostgreSQL and Redis are reachable. Each server is started
 * several times in turns; the median is reported.
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { fmt, ratio, table } = require('./lib/report');
const { ROOT, SERVER_CORE, TASKSET, freePort } = require('./lib/servers');

const HEADING = '## Start-up and idle memory';

const ALL_FEATURES_YAML = (db, redis) => `general:
  db_url: ${db}
  enable_per_user_monitoring: true
  executions: { store: postgres, redis_url: ${redis}, redis_key_prefix: 'bench-startup:' }
  async: { queue: redis, redis_url: ${redis}, queue_prefix: bench-startup }
  auth:
    jwt: { secret: 'bench-startup-secret-bench-startup-secret' }
llms:
  openai_llm: { _type: openai, base_url: 'http://127.0.0.1:9/v1', model_name: m, api_key: k }
functions:
  calculator: { _type: calculator }
workflow:
  _type: tool_calling_agent
  llm_name: openai_llm
  tool_names: [calculator]
`;

function get(port) {
  return new Promise((resolve) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/health', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(0));
    req.setTimeout(1000, () => req.destroy());
  });
}

function rssMiB(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s*(\d+)/.exec(status)[1]) / 1024;
}

/** Spawns `argv`, polls /health every 5 ms until 200, waits `idleMs`, samples RSS, kills it. */
async function startOnce(spec, idleMs) {
  const port = await freePort();
  const argv = spec.argv(port);
  const [cmd, args] = TASKSET
    ? [TASKSET, ['-c', SERVER_CORE, process.execPath, ...argv]]
    : [process.execPath, argv];
  const t0 = process.hrtime.bigint();
  const child = spawn(cmd, args, {
    cwd: spec.cwd ?? ROOT,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  let exited = false;
  child.once('exit', () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${spec.label} exited before answering: ${stderr.slice(0, 500)}`);
      if ((await get(port)) === 200) break;
      if (Number(process.hrtime.bigint() - t0) > 60e9) throw new Error(`${spec.label}: no 200 in 60 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    await new Promise((r) => setTimeout(r, idleMs));
    return { ms, rss: rssMiB(child.pid) };
  } finally {
    child.kill('SIGKILL');
    if (!exited) await new Promise((r) => child.once('exit', r));
  }
}

function reachable(url, defaultPort) {
  return new Promise((resolve) => {
    try {
      const u = new URL(url);
      const socket = net.connect(Number(u.port || defaultPort), u.hostname.replace(/^\[|\]$/g, ''));
      socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
      socket.once('connect', () => (socket.end(), resolve(true)));
      socket.once('error', () => resolve(false));
    } catch {
      resolve(false);
    }
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function measureStartup({ quick }) {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-startup-'));
  const cli = path.join(ROOT, 'dist', 'cli.js');
  const specs = [
    {
      key: 'nest',
      label: 'NestJS 12 app (bare, one route)',
      argv: (port) => [path.join(__dirname, 'servers', 'bare-nest-main.js'), String(port)],
    },
    {
      key: 'default',
      label: 'Interlude, config/default.yml',
      cwd: tmp,
      env: { LOG_LEVEL: 'info' },
      argv: (port) => [
        cli,
        'serve',
        '--config',
        path.join(ROOT, 'config', 'default.yml'),
        '--port',
        String(port),
      ],
    },
  ];
  if (process.env.BENCH_BASE_DIST) {
    specs.push({
      key: 'base',
      label: 'base build, config/default.yml',
      cwd: tmp,
      env: { LOG_LEVEL: 'info' },
      argv: (port) => [
        path.join(path.resolve(process.env.BENCH_BASE_DIST), 'cli.js'),
        'serve',
        '--config',
        path.join(ROOT, 'config', 'default.yml'),
        '--port',
        String(port),
      ],
    });
  }
  const db = process.env.DATABASE_URL;
  const redis = process.env.REDIS_URL;
  let skipped;
  if (db && redis && (await reachable(db, 5432)) && (await reachable(redis, 6379))) {
    const file = path.join(tmp, 'all-features.yml');
    const url = new URL(db);
    url.searchParams.set('schema', 'bench_startup');
    fs.writeFileSync(file, ALL_FEATURES_YAML(url.toString(), redis));
    specs.push({
      key: 'all',
      label: 'Interlude, every feature configured',
      cwd: tmp,
      env: { LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' },
      argv: (port) => [cli, 'serve', '--config', file, '--port', String(port)],
    });
  } else {
    skipped = 'DATABASE_URL and REDIS_URL not set or not reachable: no row for every feature';
  }
  const runs = quick ? 3 : 7;
  const results = new Map(specs.map((s) => [s, []]));
  // A first start of each (its own files into the page cache, the schema created) is not counted.
  for (const spec of specs) await startOnce(spec, 200);
  for (let r = 0; r < runs; r++) {
    for (const spec of r % 2 ? [...specs].reverse() : specs) {
      const one = await startOnce(spec, 1000);
      results.get(spec).push(one);
      process.stdout.write(`  ${spec.label}: ${fmt(one.ms)} ms, ${fmt(one.rss, 1)} MiB\n`);
    }
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  return {
    runs,
    skipped,
    rows: specs.map((spec) => ({
      key: spec.key,
      label: spec.label,
      ms: median(results.get(spec).map((x) => x.ms)),
      rss: median(results.get(spec).map((x) => x.rss)),
    })),
  };
}

function startupSection(env, result, { quick, pin }) {
  const by = (key) => result.rows.find((r) => r.key === key);
  const nest = by('nest');
  const def = by('default');
  const rows = table(
    [
      'Server',
      'spawn → first 200 on /health (median ms)',
      'idle RSS (median MiB)',
      'time vs Nest',
      'RSS vs Nest',
    ],
    result.rows.map((r) => [r.label, fmt(r.ms), fmt(r.rss, 1), ratio(r.ms, nest.ms), ratio(r.rss, nest.rss)]),
  );
  const targets = [
    [
      'Start-up ≤ 1.5× the bare Nest app (config/default.yml)',
      `${fmt(def.ms)} vs ${fmt(nest.ms)} ms = ${ratio(def.ms, nest.ms)}`,
      def.ms <= 1.5 * nest.ms,
    ],
    [
      'Idle RSS ≤ 1.3× the bare Nest app (config/default.yml)',
      `${fmt(def.rss, 1)} vs ${fmt(nest.rss, 1)} MiB = ${ratio(def.rss, nest.rss)}`,
      def.rss <= 1.3 * nest.rss,
    ],
  ];
  const text = `${HEADING}

- Command: \`npm run bench\` (alone: \`node bench/run.js --only startup\`)${quick ? ' (--quick)' : ''}
- Date: ${env.date}
- Machine: ${env.cpu}, ${env.cores} cores, ${env.os}, load average at start ${env.load}
- Node: ${env.node}; commit ${env.commit}
- Pinning: ${pin}
${process.env.BENCH_BASE_DIST ? `- "base build" rows: the same server built from ${process.env.BENCH_BASE_COMMIT ?? process.env.BENCH_BASE_DIST} (\`BENCH_BASE_DIST=<its dist/>\`), measured in the same run.\n` : ''}- Each server spawned ${result.runs} times in turns (after one uncounted start each); spawn → the first
  200 answer to \`GET /health\` (polled every 5 ms), then RSS (/proc/<pid>/status) after 1 s idle; medians.
  Interlude runs as \`interlude serve\` with LOG_LEVEL=info, its stdout a pipe. The every-feature config:
  PostgreSQL \`db_url\`, \`executions.store: postgres\` with Redis, BullMQ on Redis, a JWT secret, an OpenAI
  LLM, the calculator tool and OTLP export (OTEL_EXPORTER_OTLP_ENDPOINT).${result.skipped ? `\n- ${result.skipped}.` : ''}
- Where start-up goes: \`LOG_LEVEL=debug interlude serve\` logs each step with its time.

${rows}

### Targets (start-up)

${table(
  ['Target', 'Measured', 'Result'],
  targets.map(([t, m, ok]) => [t, m, ok ? 'PASS' : '**FAIL**']),
)}
`;
  return { text, passed: targets.filter((t) => t[2]).length, total: targets.length };
}

module.exports = { HEADING, measureStartup, startupSection };
