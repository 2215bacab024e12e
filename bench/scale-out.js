'use strict';
/**
 * Scale-out on the shared store: 1, 2 and 3 `interlude serve` replicas on one PostgreSQL schema and one
 * Redis key prefix, the load spread over them in turns (one autocannon per replica, the connections
 * split between them: a round-robin client). On this 2-core machine every replica is pinned to the same
 * core, so total throughput cannot grow with replicas; what should stay flat is the CPU each request
 * costs the replica that serves it (a replica that pays for the others' presence, through claims,
 * heartbeats or shared reads, shows up here).
 *
 * Workloads: `POST /v1/workflow` echo (what never waits), and a person's round trip (start → 202
 * waiting → answer on the next replica → completed), which writes to the shared store.
 *
 * Run by `node bench/run.js --only scaleout` (needs DATABASE_URL and REDIS_URL).
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { nowMs, send } = require('./lib/clients');
const { fmt, table } = require('./lib/report');
const { startReplica } = require('./lib/replica-servers');
const { deployment, load, stopAll, WORKFLOWS } = require('./shared-store');

const HEADING = '## Scale-out on the shared store';

function settings(quick) {
  return { connections: 24, warmup: quick ? 1 : 3, seconds: quick ? 2 : 6, roundTrips: quick ? 100 : 400 };
}

async function replicasOf(dep, n) {
  const replicas = [];
  for (let i = 0; i < n; i++) replicas.push(await startReplica(dep.file, `R${i + 1}`));
  return { label: `${n} replica(s)`, dep, replicas };
}

const cpuOf = (replicas) => replicas.map((r) => r.cpuMicros());

/** Echo requests spread over the replicas: req/s, and CPU µs per request served, per replica. */
async function echo(s, S) {
  const spec = WORKFLOWS.echo;
  const per = Math.max(1, Math.floor(S.connections / s.replicas.length));
  const run = (duration) =>
    Promise.all(s.replicas.map((r) => load({ port: r.port, body: spec.body, connections: per, duration })));
  await run(S.warmup);
  const cpu0 = cpuOf(s.replicas);
  const results = await run(S.seconds);
  const cpu1 = cpuOf(s.replicas);
  const failures = results.reduce((sum, x) => sum + x.errors + x.timeouts + x.non2xx, 0);
  if (failures) throw new Error(`${s.label}: ${failures} failed echo requests`);
  const requests = results.map((x) => x.requests.total);
  const total = requests.reduce((a, b) => a + b, 0);
  return {
    rps: total / S.seconds,
    cpuPerRequest: s.replicas.map((_, i) => (cpu1[i] - cpu0[i]) / requests[i]),
  };
}

/** Person round trips (start on one replica, answer on the next): per second, CPU µs per trip per replica. */
async function roundTrips(s, S) {
  // A connection per request: a replica closes idle kept-alive ones, and a loaded client would reuse one it closed.
  const agent = new http.Agent({ keepAlive: false, maxSockets: 64 });
  const ports = s.replicas.map((r) => r.port);
  let next = 0;
  const trip = async () => {
    const i = next++;
    const start = await send(agent, ports[i % ports.length], 'POST', '/v1/workflow', { input_message: 'x' });
    if (start.status !== 202) throw new Error(`start answered ${start.status} ${start.body}`);
    const { response_url } = JSON.parse(start.body);
    const answer = { response: { type: 'text', text: 'Ann' } };
    const r = await send(agent, ports[(i + 1) % ports.length], 'POST', response_url, answer);
    if (r.status !== 204) throw new Error(`answer answered ${r.status} ${r.body}`);
  };
  const width = 16;
  const batch = async (count) => {
    let left = count;
    await Promise.all(
      Array.from({ length: width }, async () => {
        while (left-- > 0) await trip();
      }),
    );
  };
  await batch(Math.floor(S.roundTrips / 4));
  const cpu0 = cpuOf(s.replicas);
  const t0 = nowMs();
  await batch(S.roundTrips);
  const seconds = (nowMs() - t0) / 1000;
  const cpu1 = cpuOf(s.replicas);
  agent.destroy();
  const cpu = s.replicas.map((_, i) => cpu1[i] - cpu0[i]);
  return {
    rps: S.roundTrips / seconds,
    cpuPerRequest: cpu.map((c) => c / (S.roundTrips / s.replicas.length)),
  };
}

async function measureScaleOut({ quick = false } = {}) {
  const S = settings(quick);
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
    return { settings: S, skipped: 'DATABASE_URL or REDIS_URL is not set', rows: [] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-scale-'));
  const rows = [];
  try {
    for (const n of [1, 2, 3]) {
      for (const kind of ['echo', 'hitl']) {
        const s = await replicasOf(deployment('postgres', kind, dir), n);
        try {
          const r = kind === 'echo' ? await echo(s, S) : await roundTrips(s, S);
          process.stdout.write(`  ${n} replica(s), ${kind}: ${fmt(r.rps)}/s\n`);
          rows.push({ n, kind, ...r });
        } finally {
          await stopAll([s]);
        }
      }
    }
    return { settings: S, rows };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function scaleOutSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  if (r.skipped) return { text: `${HEADING}\n\n- Not measured: ${r.skipped}.\n`, passed: 0, total: 0 };
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const base = Object.fromEntries(
    r.rows.filter((x) => x.n === 1).map((x) => [x.kind, mean(x.cpuPerRequest)]),
  );
  const rows = r.rows.map((x) => [
    x.kind === 'echo' ? '`POST /v1/workflow` echo' : 'start → 202 → answer on the next replica',
    String(x.n),
    fmt(x.rps),
    x.cpuPerRequest.map((c) => fmt(c)).join(' / '),
    `${fmt(mean(x.cpuPerRequest) / base[x.kind], 2)}×`,
  ]);
  const text = `${HEADING}

- Command: \`node bench/run.js --only scaleout\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; commit ${env.commit}; load average at start ${env.load}; ${pin}
- 1, 2 and 3 \`interlude serve\` replicas on one PostgreSQL schema and one Redis prefix; all on one core,
  so total throughput is bounded by that core: the figure to read is the CPU per request of each replica
  (its /proc user + system time over the requests it served), which should stay flat as replicas are added.
- Echo: ${S.connections} autocannon connections split over the replicas, ${S.seconds} s after a ${S.warmup} s warm-up.
  Round trips: ${fmt(S.roundTrips)} executions, 16 at a time, each started on one replica (202, waiting
  on a prompt) and answered on the next (204); CPU per round trip counts the replica's share of them.

${table(['workload', 'replicas', 'per second (all)', 'CPU µs per request, per replica', 'CPU/request vs 1 replica'], rows)}
`;
  return { text, passed: 0, total: 0 };
}

module.exports = { measureScaleOut, scaleOutSection, HEADING };
