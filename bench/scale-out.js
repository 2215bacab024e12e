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
 * context switches) without doing more work. So do servers that share nothing but the core, so n
 * independent memory-store servers run beside the n replicas as the baseline. Per (n, workload):
 *  1. on each set, the old saturating load (autocannon at full speed; round trips 16 at a time), after
 *     a warm-up of the same: it also brings the JIT to its steady state, which a paced load takes
 *     minutes to reach;
 *  2. rounds of the paced load, on the two sets in turns: CPU µs per request per process (its threads'
 *     time on a core, /proc schedstat), and per round the replicas' mean over the memory servers' (the
 *     section reports its median against 1 replica's: the growth beyond independent servers);
 *  3. the same paced load again on the replicas under V8's CPU profiler (bench/lib/profile-on-signal.js):
 *     the share of busy samples in PostgreSQL and Redis client code; a separate window, as the
 *     profiler's threads cost CPU of their own. The profiles stay in bench/profiles/scaleout-*.cpuprofile.
 *
 * Workloads: `POST /v1/workflow` echo (what never waits), and a person's round trip (start → 202
 * waiting → answer on the next replica → completed), which writes to the shared store. Then what a
 * replica pays for round trips it takes no part in (bench/bystander.js), and what a round trip pays for
 * crossing replicas (bench/crossing.js).
 *
 * Run by `node bench/run.js --only scaleout` (needs DATABASE_URL and REDIS_URL); the section's text is
 * bench/scale-out-section.js.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { nowMs, paced, pool, send } = require('./lib/clients');
const { fmt, mean, median } = require('./lib/report');
const { startReplica } = require('./lib/replica-servers');
const { analyse } = require('./profile-summary');
const { measureBystander } = require('./bystander');
const { measureCrossing } = require('./crossing');
const { deployment, load, roundTrip, stopAll, WORKFLOWS } = require('./shared-store');

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
    rounds: quick ? 1 : 5,
    // Per replica, the same for 1, 2 and 3 replicas: set from 1 replica's saturation (`pacedRate`).
    rate: { echo: 0, hitl: 0 },
    // 3 replicas under the paced load use about this share of the core; paced, a request costs about
    // this many times its CPU at saturation (no batching per event-loop turn).
    load: { share: 0.5, pacedCost: 3 },
    // Requests each process serves before anything is measured, whatever n (a round trip counts for
    // every process it touches). V8 compiles a server's hot paths over its first thousands of requests,
    // on helper threads of the core they share: after 500 round trips, two replicas still spent about a
    // fifth of their CPU there, and compiled 466 functions over the next 1,500.
    jit: { echo: quick ? 1_000 : 10_000, hitl: quick ? 100 : 2_000 },
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
 * The rate each replica is offered whatever n, from 1 replica's CPU µs per request at saturation: 3
 * replicas then use about `load.share` of the core. Fixed rates made for a slower machine left a faster
 * one's core mostly idle, where what a request costs is mostly waking the core up.
 */
function pacedRate(kind, cpuMicros, S) {
  const rate = (S.load.share * 1e6) / (3 * S.load.pacedCost * cpuMicros);
  return kind === 'echo' ? Math.max(10, Math.round(rate / 10) * 10) : Math.max(1, Math.round(rate));
}

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
  return roundTrip(agent, ports, across);
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
  // The JIT needs thousands of requests to settle; at a paced rate that would take minutes. Each process
  // gets its own count, so that n replicas are as warm as one.
  await pool(S.jit[kind] * n, 16, s.fire);
  const { warmup, roundTrips } = S.saturated;
  await saturate(s, kind, s.fire, { ...S.saturated, seconds: warmup, trips: roundTrips / 2 });
  s.saturated = await saturated(s, kind, s.fire, S.saturated);
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
    // 1 replica comes first: every n is offered the rate its saturation sets.
    if (n === 1) S.rate[kind] = pacedRate(kind, sets[1].saturated.cpuPerRequest[0], S);
    const rate = S.rate[kind];
    for (const set of sets) await paced({ rate: rate * n, seconds: S.warmup, fire: set.fire });
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

async function measureScaleOut({ quick = false } = {}) {
  const S = settings(quick);
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
    return { settings: S, skipped: 'DATABASE_URL or REDIS_URL is not set', rows: [] };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-scale-'));
  const rows = [];
  try {
    for (const n of [1, 2, 3])
      for (const kind of ['echo', 'hitl']) rows.push(...(await measure(n, kind, S, dir)));
    const crossing = await measureCrossing(S, dir);
    return { settings: S, rows, crossing, bystander: await measureBystander(S, dir) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { measureScaleOut };
