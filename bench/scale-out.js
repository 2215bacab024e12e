'use strict';
/**
 * Scale-out on the shared store: 1, 2 and 3 `interlude serve` replicas on one PostgreSQL schema and one
 * Redis key prefix, a round-robin client sending the k-th request to replica k mod n. On this 2-core
 * machine every replica is pinned to the same core, so total throughput cannot grow with replicas; what
 * should stay flat is the CPU each request costs the replica that serves it (a replica that pays for the
 * others' presence, through claims, heartbeats or shared reads, shows up here).
 *
 * Each replica gets the same offered load whatever n, well below what saturates the core: replicas that
 * time-share a saturated core cost more per request (fewer requests batched per event-loop turn, more
 * context switches) without doing more work. Per (n, workload), on the same processes:
 *  1. the old saturating load (autocannon at full speed; round trips 16 at a time), after a warm-up of
 *     the same: it also brings the JIT to its steady state, which a paced load takes minutes to reach;
 *  2. the paced load: CPU µs per request per replica (/proc user + system);
 *  3. the same paced load again under V8's CPU profiler (bench/lib/profile-on-signal.js): the share of
 *     busy samples in PostgreSQL and Redis client code; a separate window, as the profiler's threads
 *     cost CPU of their own. The profiles stay in bench/profiles/scaleout-*.cpuprofile.
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
const { nowMs, paced, send } = require('./lib/clients');
const { fmt, table } = require('./lib/report');
const { startReplica } = require('./lib/replica-servers');
const { analyse } = require('./profile-summary');
const { deployment, load, stopAll, WORKFLOWS } = require('./shared-store');

const HEADING = '## Scale-out on the shared store';
/** Where the profiled windows are left, for `node bench/profile-summary.js <file>` (µs per request). */
const PROFILES = path.join(__dirname, 'profiles');
/** The profiler's own start and stop (bench/lib/profile-on-signal.js), left out of the samples. */
const PRELOAD = 'profile-on-signal.js';

/** Packages (as profile-summary.js names a frame's owner) whose self time counts as client code. */
const PG_CLIENT = /^(pg|pg-[a-z0-9-]+|pgpass|postgres-[a-z]+|kysely)$/;
const REDIS_CLIENT =
  /^(ioredis|@ioredis\/[a-z-]+|redis-parser|redis-errors|denque|standard-as-callback|cluster-key-slot)$/;

function settings(quick) {
  return {
    warmup: quick ? 1 : 3,
    seconds: quick ? 2 : 5,
    rounds: quick ? 1 : 3,
    // Per replica, the same for 1, 2 and 3 replicas. A paced echo costs ~800 µs of CPU, a round trip
    // ~12 ms (more than at saturation: no batching per event-loop turn), so 3 replicas use about half
    // the core.
    rate: { echo: 200, hitl: 10 },
    saturated: {
      warmup: quick ? 1 : 2,
      connections: 24,
      seconds: quick ? 1 : 4,
      roundTrips: quick ? 50 : 200,
    },
  };
}

const cpuOf = (replicas) => replicas.map((r) => r.cpuMicros());

/**
 * The k-th request of a run (one echo, or one round trip of two requests) on replica k mod n; a round
 * trip is answered on the next replica, or (`across` false: servers that share nothing) on the same.
 */
function requester(kind, ports, agent, across = true) {
  if (kind === 'echo') {
    const body = JSON.parse(WORKFLOWS.echo.body);
    return async (k) => {
      const r = await send(agent, ports[k % ports.length], 'POST', '/v1/workflow', body);
      if (r.status !== 200) throw new Error(`echo answered ${r.status} ${r.body}`);
    };
  }
  return async (k) => {
    const start = await send(agent, ports[k % ports.length], 'POST', '/v1/workflow', { input_message: 'x' });
    if (start.status !== 202) throw new Error(`start answered ${start.status} ${start.body}`);
    const { response_url } = JSON.parse(start.body);
    const answer = { response: { type: 'text', text: 'Ann' } };
    const r = await send(agent, ports[(k + (across ? 1 : 0)) % ports.length], 'POST', response_url, answer);
    if (r.status !== 204) throw new Error(`answer answered ${r.status} ${r.body}`);
  };
}

/** One paced window: achieved requests/s (all replicas), CPU µs per request of each replica. */
async function window(s, fire, rate, seconds) {
  const n = s.replicas.length;
  const cpu0 = cpuOf(s.replicas);
  const t0 = nowMs();
  const count = await paced({ rate: rate * n, seconds, fire });
  const elapsed = (nowMs() - t0) / 1000;
  const cpu1 = cpuOf(s.replicas);
  return {
    perSecond: count / elapsed,
    perReplica: count / n,
    cpuPerRequest: s.replicas.map((_, i) => (cpu1[i] - cpu0[i]) / (count / n)),
  };
}

/**
 * The paced window again under the profiler: the share of the replica's busy samples (self time) in
 * PostgreSQL and Redis client code. A share, not the samples' µs: a sample's time is the wall time since
 * the one before, which grows when the replica waits for the core it shares.
 */
async function profiledWindow(s, fire, rate, seconds) {
  await Promise.all(s.replicas.map((r) => r.profileStart()));
  const w = await window(s, fire, rate, seconds);
  await Promise.all(s.replicas.map((r) => r.profileStop()));
  const selfOf = (owners, pattern) =>
    [...owners].reduce((sum, [owner, us]) => sum + (pattern.test(owner) ? us : 0), 0);
  const shares = s.replicas.map((r) => {
    const meta = { label: `${s.label}, ${r.name}`, units: w.perReplica, unit: 'request' };
    fs.writeFileSync(`${r.profile}.meta`, JSON.stringify(meta));
    const { busy, tables } = analyse(r.profile, meta, { skip: (at) => at.includes(PRELOAD) });
    return {
      pg: selfOf(tables.owner, PG_CLIENT) / busy,
      redis: selfOf(tables.owner, REDIS_CLIENT) / busy,
    };
  });
  return { cpuPerRequest: w.cpuPerRequest, shares };
}

/** The saturating load for `seconds` (echo: autocannon at full speed) or `trips` (16 at a time). */
async function saturate(s, kind, fire, { connections, seconds, trips }) {
  if (kind === 'echo') {
    const per = Math.max(1, Math.floor(connections / s.replicas.length));
    const results = await Promise.all(
      s.replicas.map((r) =>
        load({ port: r.port, body: WORKFLOWS.echo.body, connections: per, duration: seconds }),
      ),
    );
    const failures = results.reduce((sum, x) => sum + x.errors + x.timeouts + x.non2xx, 0);
    if (failures) throw new Error(`${s.label}: ${failures} failed echo requests`);
    return results.reduce((sum, x) => sum + x.requests.total, 0);
  }
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < trips) await fire(next++);
    }),
  );
  return trips;
}

/** The saturating load measured: per second (all replicas), CPU µs per request per replica. */
async function saturated(s, kind, fire, S) {
  const cpu0 = cpuOf(s.replicas);
  const t0 = nowMs();
  const count = await saturate(s, kind, fire, { ...S, trips: S.roundTrips });
  const seconds = (nowMs() - t0) / 1000;
  const cpu1 = cpuOf(s.replicas);
  // autocannon counts per replica; the round trips touch every replica equally.
  return {
    perSecond: count / seconds,
    cpuPerRequest: s.replicas.map((_, i) => (cpu1[i] - cpu0[i]) / (count / s.replicas.length)),
  };
}

/** n servers of `store` (postgres: replicas of one deployment; memory: independent servers), warmed up. */
async function startSet(n, kind, S, dir, store) {
  const shared = store === 'postgres';
  // Independent servers: one memory-store config each, so they share nothing but the core.
  const deps = Array.from({ length: shared ? 1 : n }, () => deployment(store, kind, dir));
  const s = {
    label: `${n} ${shared ? 'replica(s)' : 'memory server(s)'}, ${kind}`,
    dep: deps[0],
    deps,
    replicas: [],
  };
  for (let i = 0; i < n; i++) {
    const name = `${shared ? 'R' : 'M'}${i + 1}`;
    const profile = path.join(PROFILES, `scaleout-${kind}-${n}-${name}.cpuprofile`);
    const file = deps[shared ? 0 : i].file;
    // The profiler's preload in every process, so that only what they run differs.
    s.replicas.push({ ...(await startReplica(file, name, { profile })), profile });
  }
  // Kept-alive connections, used in turns (fifo) so none idles long enough for the server to close it.
  s.agent = new http.Agent({ keepAlive: true, scheduling: 'fifo', maxSockets: 32 });
  s.fire = requester(
    kind,
    s.replicas.map((r) => r.port),
    s.agent,
    shared,
  );
  // The JIT needs thousands of requests to settle; at a paced rate that would take minutes.
  const { warmup, roundTrips } = S.saturated;
  await saturate(s, kind, s.fire, { ...S.saturated, seconds: warmup, trips: roundTrips / 2 });
  s.saturated = await saturated(s, kind, s.fire, S.saturated);
  await paced({ rate: S.rate[kind] * n, seconds: S.warmup, fire: s.fire });
  return s;
}

async function stopSet(s) {
  s.agent?.destroy();
  await stopAll([s]);
  for (const dep of s.deps.slice(1)) await dep.clean();
}

/**
 * n independent memory-store servers and n replicas, both running, measured in turns: `rounds` paced
 * windows each, alternating which goes first, so that the machine's drift falls on both alike.
 */
async function measure(n, kind, S, dir) {
  const sets = [];
  try {
    for (const store of ['memory', 'postgres']) sets.push(await startSet(n, kind, S, dir, store));
    const rate = S.rate[kind];
    const windows = sets.map(() => []);
    for (let r = 0; r < S.rounds; r++) {
      const order = r % 2 === 0 ? [0, 1] : [1, 0];
      for (const i of order) windows[i].push(await window(sets[i], sets[i].fire, rate, S.seconds));
    }
    const replicas = sets[1];
    const profiled = await profiledWindow(replicas, replicas.fire, rate, S.seconds);
    return sets.map((set, i) => {
      const row = summary(set, windows[i]);
      const note = i === 1 ? ` (profiled ${profiled.cpuPerRequest.map((c) => fmt(c)).join(' / ')})` : '';
      process.stdout.write(
        `  ${set.label}: CPU µs/request ${row.fixed.cpuPerRequest.map((c) => fmt(c)).join(' / ')}${note}; saturated ${fmt(set.saturated.perSecond)}/s\n`,
      );
      return {
        n,
        kind,
        store: i === 0 ? 'memory' : 'postgres',
        rate,
        ...row,
        // Per round, the replicas' mean CPU per request over the memory servers' in the same round.
        paired: windows[1].map((w, r) => mean(w.cpuPerRequest) / mean(windows[0][r].cpuPerRequest)),
        profiled: i === 1 ? profiled : undefined,
        saturated: set.saturated,
      };
    });
  } finally {
    for (const set of sets) await stopSet(set);
  }
}

/** Per process, the median over the rounds of its CPU per request; requests/s likewise. */
function summary(set, windows) {
  return {
    fixed: {
      perSecond: median(windows.map((w) => w.perSecond)),
      cpuPerRequest: set.replicas.map((_, i) => median(windows.map((w) => w.cpuPerRequest[i]))),
    },
  };
}

const median = (xs) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function measureScaleOut({ quick = false } = {}) {
  const S = settings(quick);
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
    return { settings: S, skipped: 'DATABASE_URL or REDIS_URL is not set', rows: [] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-scale-'));
  const rows = [];
  try {
    for (const n of [1, 2, 3])
      for (const kind of ['echo', 'hitl']) rows.push(...(await measure(n, kind, S, dir)));
    return { settings: S, rows };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const each = (xs, f) => xs.map(f).join(' / ');
const WORKLOAD = {
  echo: '`POST /v1/workflow` echo',
  hitl: 'round trip: start → 202 → answer on the next replica',
};

function scaleOutSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  if (r.skipped) return { text: `${HEADING}\n\n- Not measured: ${r.skipped}.\n`, passed: 0, total: 0 };
  const shared = r.rows.filter((x) => x.store === 'postgres');
  const alike = (x, n, store) => r.rows.find((y) => y.n === n && y.kind === x.kind && y.store === store);
  /** Mean CPU per request against the same workload on 1 server of the same kind. */
  const growth = (x, pick) => mean(pick(x).cpuPerRequest) / mean(pick(alike(x, 1, x.store)).cpuPerRequest);
  // Paired per round (replicas against memory servers measured next to them), then against 1 replica.
  const beyond = (x) => median(x.paired) / median(alike(x, 1, 'postgres').paired);
  const client = (x, key) =>
    each(
      x.profiled.shares,
      (sh, i) => `${fmt(sh[key] * x.fixed.cpuPerRequest[i])} (${fmt(100 * sh[key], 1)} %)`,
    );
  const fixedRows = shared.map((x) => [
    WORKLOAD[x.kind],
    String(x.n),
    fmt(x.rate),
    fmt(x.fixed.perSecond),
    each(x.fixed.cpuPerRequest, (c) => fmt(c)),
    `${fmt(
      growth(x, (y) => y.fixed),
      2,
    )}×`,
    each(alike(x, x.n, 'memory').fixed.cpuPerRequest, (c) => fmt(c)),
    `${fmt(
      growth(alike(x, x.n, 'memory'), (y) => y.fixed),
      2,
    )}×`,
    `**${fmt(beyond(x), 2)}×**`,
    client(x, 'pg'),
    client(x, 'redis'),
  ]);
  const satRows = shared.map((x) => [
    WORKLOAD[x.kind],
    String(x.n),
    fmt(x.saturated.perSecond),
    each(x.saturated.cpuPerRequest, (c) => fmt(c)),
    `${fmt(
      growth(x, (y) => y.saturated),
      2,
    )}×`,
    fmt(alike(x, x.n, 'memory').saturated.perSecond),
    `${fmt(
      growth(alike(x, x.n, 'memory'), (y) => y.saturated),
      2,
    )}×`,
  ]);
  const overhead = shared.map((x) => mean(x.profiled.cpuPerRequest) / mean(x.fixed.cpuPerRequest) - 1);
  const pct = (v) => `${fmt(100 * v)} %`;
  const text = `${HEADING}

- Command: \`node bench/run.js --only scaleout\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; commit ${env.commit}; load average at start ${env.load}; ${pin}
- 1, 2 and 3 \`interlude serve\` replicas on one PostgreSQL schema and one Redis prefix, all on one core
  (PostgreSQL and Redis themselves unpinned). A round-robin client sends the k-th request to replica
  k mod n over kept-alive connections, evenly spaced in time (an open loop; autocannon's rate limit
  sends each connection's quota in a burst at the top of every second, lining the replicas' bursts up).
  Every replica is offered the same load whatever n: ${fmt(S.rate.echo)} echo requests/s, or ${fmt(S.rate.hitl)} round trips/s
  started on it (each answered on the next replica). Paced, a request costs about twice its CPU at
  saturation (no batching per event-loop turn), so these rates keep 3 replicas at about half the core:
  the CPU per request then measures the work a request costs, not the contention for a saturated core.
- Per workload and n, the n memory-store servers and the n replicas run side by side; each gets the
  saturating load (warm-up, then measured: the second table; it also brings the JIT to its steady
  state) and ${S.warmup} s of the paced load; then ${S.rounds} rounds of a ${S.seconds} s paced window on each, in turns (which one
  goes first alternates), then one more on the replicas under the profiler.
- CPU µs per request: the process's /proc user + system time over a paced window, divided by the
  requests it served (a round trip counts once, for the replica's share of the trips: 1/n of them);
  the median over the rounds.
- Baseline, in the same run: n independent memory-store servers (each its own config, sharing nothing
  but the core) under the same paced load, a round trip answered on the server that started it. Their
  CPU per request grows with n too: n processes time-sharing one core evict each other's caches.
  "Growth beyond independent servers": per round, the replicas' mean CPU per request over the memory
  servers' in the same round; its median over the rounds, against the same for 1 replica. It is what a
  replica pays for the others' presence (claims, heartbeats, change notices, wake-ups). Target: flat
  from 1 to 3 replicas. A round trip on 2 or 3 replicas is answered on another replica, on 1 on the
  same one, so the step from 1 to 2 also holds what crossing replicas costs (the wake-up, the notice
  carrying the answer, the answering replica's read of the record); from 2 to 3 only the others'
  presence grows.
- PostgreSQL / Redis client: the share of the replica's busy V8 CPU-profile samples (500 µs sampling,
  the main thread's self time, the profiler's own start left out) in frames of pg, pg-protocol, pg-pool,
  pg-types, postgres-*, kysely (PostgreSQL), and of ioredis, @ioredis/*, redis-parser, denque (Redis), with
  their small helper packages; Node's own code they call (sockets, buffers) is not counted. µs per
  request is that share of the paced window's CPU per request. The profile is a separate window of the
  same load, as the profiler costs CPU of its own (${fmt(100 * Math.min(...overhead))}–${pct(Math.max(...overhead))} more per request here, its
  sampling thread included); the share, not the samples' µs, is used, as a sample's time is the wall
  time since the one before, which stretches while the replica waits for the core it shares.
  Profiles: \`node bench/profile-summary.js bench/profiles/scaleout-hitl-3-R1.cpuprofile\`.

${table(
  [
    'workload',
    'replicas',
    'offered /s per replica',
    'achieved /s (all)',
    'CPU µs per request, per replica',
    'CPU/request vs 1 replica',
    'independent memory servers: CPU µs per request',
    'vs 1 server',
    'growth beyond independent servers',
    'PostgreSQL client: µs per request (share)',
    'Redis client: µs per request (share)',
  ],
  fixedRows,
)}

At saturation, for comparison (the one core shared, so per-request CPU here also grows with the time-sharing;
echo: ${S.saturated.connections} autocannon connections split over the replicas, ${S.saturated.seconds} s after ${S.saturated.warmup} s of the same;
round trips: ${fmt(S.saturated.roundTrips)}, 16 at a time, after ${fmt(S.saturated.roundTrips / 2)}):

${table(
  [
    'workload',
    'replicas',
    'per second (all)',
    'CPU µs per request, per replica',
    'CPU/request vs 1 replica',
    'independent memory servers: per second (all)',
    'CPU/request vs 1 server',
  ],
  satRows,
)}
`;
  return { text, passed: 0, total: 0 };
}

module.exports = { measureScaleOut, scaleOutSection, HEADING };
