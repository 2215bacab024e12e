'use strict';
/**
 * What a round trip pays for crossing replicas, apart from the others' presence: two replicas of one
 * deployment on one core, round trips started on R1 and R2 in turns, answered on the replica that
 * started them ("same") or on the other ("across"), in windows taken in turns (which goes first
 * alternates). Per round trip: both replicas' CPU, their wake-ups (voluntary context switches: each
 * reply, message or request that finds a replica idle wakes it), and the Redis commands and PostgreSQL
 * transactions the servers counted.
 *
 * On one replica a round trip is always "same"; from two on, the scale-out part answers on the next
 * replica, always "across". So this is the step from 1 to 2 in the scale-out table, measured on one
 * set of replicas.
 *
 * Part of `node bench/run.js --only scaleout` (bench/scale-out.js); reported in its section.
 */
const http = require('node:http');
const { paced, pool } = require('./lib/clients');
const { fmt, median, table } = require('./lib/report');
const { startReplica } = require('./lib/replica-servers');
const { deployment, roundTrip, stopAll } = require('./shared-store');

/** Totals the servers keep: Redis commands run (scripts' own calls included), PostgreSQL commits. */
async function serverCounts(redis, pg) {
  const info = await redis.info('commandstats');
  let commands = 0;
  for (const m of info.matchAll(/^cmdstat_[^:]+:calls=(\d+)/gm)) commands += Number(m[1]);
  const { rows } = await pg.query(
    'select xact_commit::bigint as commits from pg_stat_database where datname = current_database()',
  );
  return { commands, commits: Number(rows[0].commits) };
}

async function crossingWindow(replicas, fire, rate, seconds, counters) {
  const sum = (f) => replicas.reduce((total, r) => total + f(r), 0);
  const cpu0 = sum((r) => r.cpuMicros());
  const wake0 = sum((r) => r.wakeUps());
  const c0 = await serverCounts(...counters);
  const trips = await paced({ rate, seconds, fire });
  const c1 = await serverCounts(...counters);
  return {
    cpu: (sum((r) => r.cpuMicros()) - cpu0) / trips,
    wakeUps: (sum((r) => r.wakeUps()) - wake0) / trips,
    commands: (c1.commands - c0.commands) / trips,
    commits: (c1.commits - c0.commits) / trips,
  };
}

async function measureCrossing(S, dir) {
  const { Redis } = require('ioredis');
  const { Client } = require('pg');
  const dep = deployment('postgres', 'hitl', dir);
  const set = { replicas: [], dep };
  const agent = new http.Agent({ keepAlive: true, scheduling: 'fifo', maxSockets: 32 });
  const redis = new Redis(process.env.REDIS_URL);
  const pg = new Client({ connectionString: process.env.DATABASE_URL });
  try {
    await pg.connect();
    for (const name of ['R1', 'R2']) set.replicas.push(await startReplica(dep.file, name));
    const ports = set.replicas.map((r) => r.port);
    const fires = { same: roundTrip(agent, ports, false), across: roundTrip(agent, ports, true) };
    // The rate the scale-out part offers each of two replicas.
    const rate = 2 * S.rate.hitl;
    // Each replica as warm as in the scale-out table (S.jit), on both paths.
    for (const fire of Object.values(fires)) {
      await pool(S.jit.hitl, 16, fire);
      await paced({ rate: 4 * rate, seconds: S.warmup, fire });
    }
    const windows = { same: [], across: [] };
    for (let r = 0; r < S.rounds; r++) {
      for (const kind of r % 2 === 0 ? ['same', 'across'] : ['across', 'same']) {
        windows[kind].push(await crossingWindow(set.replicas, fires[kind], rate, S.seconds, [redis, pg]));
      }
    }
    const medians = (ws) =>
      Object.fromEntries(Object.keys(ws[0]).map((k) => [k, median(ws.map((w) => w[k]))]));
    const result = {
      rate,
      warm: S.jit.hitl,
      rounds: S.rounds,
      seconds: S.seconds,
      same: medians(windows.same),
      across: medians(windows.across),
      // Per round, the crossing window against the same-replica one taken next to it.
      ratio: median(windows.across.map((w, r) => w.cpu / windows.same[r].cpu)),
    };
    process.stdout.write(
      `  crossing: ${fmt(result.across.cpu)} µs per round trip across, ${fmt(result.same.cpu)} on the same replica (${fmt(result.ratio, 2)}×)\n`,
    );
    return result;
  } finally {
    agent.destroy();
    redis.disconnect();
    await pg.end().catch(() => undefined);
    await stopAll([set]);
  }
}

function crossingText(c) {
  if (!c) return '';
  const row = (label, w) => [label, fmt(w.cpu), fmt(w.wakeUps, 1), fmt(w.commands, 1), fmt(w.commits, 1)];
  const extra = {
    cpu: c.across.cpu - c.same.cpu,
    wakeUps: c.across.wakeUps - c.same.wakeUps,
    commands: c.across.commands - c.same.commands,
    commits: c.across.commits - c.same.commits,
  };
  return `
What crossing replicas costs a round trip: 2 replicas, ${fmt(c.rate)} round trips/s started on R1 and R2 in
turns, answered on the replica that started them or on the other (as the table above does from 2
replicas on); ${c.rounds} windows of each, ${c.seconds} s, in turns, after ${fmt(c.warm)} round trips of each kind
(16 at a time). Per round trip: both replicas' CPU (their threads'
time on a core), their wake-ups (voluntary context switches, /proc/<pid>/task/*/status), the Redis
commands the server ran (INFO commandstats, scripts' own calls included) and the PostgreSQL
transactions it committed (pg_stat_database, the replicas' lease renewals included); medians.
"across vs same" is the median over the rounds of each crossing window's CPU against the same-replica
window next to it.

${table(
  [
    'answered on',
    'CPU µs per round trip (both replicas)',
    'wake-ups per round trip',
    'Redis commands per round trip',
    'PostgreSQL transactions per round trip',
  ],
  [
    row('the replica that started it', c.same),
    row('the other replica', c.across),
    [
      `difference (across vs same: **${fmt(c.ratio, 2)}×**)`,
      fmt(extra.cpu),
      fmt(extra.wakeUps, 1),
      fmt(extra.commands, 1),
      fmt(extra.commits, 1),
    ],
  ],
)}
`;
}

module.exports = { measureCrossing, crossingText };
