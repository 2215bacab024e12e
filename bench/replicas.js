'use strict';
/**
 * Several replicas (`general.executions.store: postgres`, Redis for event logs and wake-ups) against
 * the memory store, in the same run. Every server is a real `interlude serve` process (dist/cli.js).
 *
 *  1. Parking: `waiting` executions started (POST /v1/workflow → 202 interaction_required), sent to
 *     the replicas in turn; what the store holds for them: the PostgreSQL schema's size
 *     (pg_total_relation_size of its tables) and the Redis keys under the deployment's prefix
 *     (MEMORY USAGE), before and after, per waiting execution and per GiB.
 *  2. Status polls/s: keep-alive clients GETting /executions/{id} back to back, cycling through the
 *     waiting ids, each request to the next replica.
 *  3. Answer → resume: one at a time, re-attach GET /executions/{id}/stream on B for an execution
 *     started on A, wait for its replayed `interaction_required`, POST the answer on B, and time the
 *     204, the stream's next frame (the workflow resumed on A, as B's client sees it) and the end of
 *     the stream (the `completed` execution).
 *  4. SIGKILL → claimed (needs leases): `orphans` more executions parked on A; A gets SIGKILL; the time
 *     until the store names A as running none of its executions any more (see `ownedCount`).
 *
 * Run by `npm run bench` (bench/run.js --only replicas); --quick parks fewer executions.
 */
const { spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { nowMs, percentile, pool, send } = require('./lib/clients');
const { ROOT } = require('./lib/servers');
const { CLI, cleanup, pgBytes, redisBytes, startReplica } = require('./lib/replica-servers');
const { measureLargeRequests } = require('./replicas-large');
const { replicasSection, HEADING } = require('./replicas-section');
const { measureAnswerFloor } = require('./answer-floor');
const { answerAndWatch } = require('./lib/answer-watch');

function settings(quick) {
  return {
    waiting: quick ? 300 : 2000,
    parkInFlight: 50,
    pollConnections: 50,
    pollMs: quick ? 2000 : 5000,
    resumes: quick ? 50 : 300,
    // Answered the way the measured ones are before anything is measured: V8 compiles a replica's hot
    // paths over its first thousands of requests, on the core the replicas share.
    warm: quick ? 100 : 1000,
    orphans: quick ? 50 : 200, // parked on A just before the kill, on top of its share of the others
    leaseSeconds: 2,
  };
}

const WORKFLOW = `workflow:
  _type: scripted
  steps:
    - prompt: { input_type: text, text: 'Your name?', save_as: name }
    - stream: { text: 'hi {{name}}' }
  output: 'Hello {{name}}'
`;

function configYaml(store, { dbUrl, redisUrl, prefix, leaseSeconds }) {
  const limits = `  max_waiting_executions: 100000
  max_waiting_executions_per_user: 100000
  max_anonymous_waiting_executions: 100000
  max_waiting_executions_per_address: 100000
`;
  if (store === 'memory') return `general:\n${limits}${WORKFLOW}`;
  return `general:
${limits}  db_url: '${dbUrl}'
${leaseSeconds ? '  shutdown_grace_seconds: 5\n' : ''}  executions:
    store: postgres
    redis_url: '${redisUrl}'
    redis_key_prefix: '${prefix}'
${leaseSeconds ? `    lease_seconds: ${leaseSeconds}\n` : ''}${WORKFLOW}`;
}

function validates(file) {
  return spawnSync(process.execPath, [CLI, 'validate', '--config', file], { cwd: ROOT }).status === 0;
}

/** Parks `count` executions, the i-th on `ports[i % ports.length]`; their 202 bodies. */
async function park(agent, ports, count, width) {
  const paused = [];
  const t0 = nowMs();
  await pool(count, width, async (i) => {
    const r = await send(agent, ports[i % ports.length], 'POST', '/v1/workflow', { input_message: 'x' });
    if (r.status !== 202) throw new Error(`start answered ${r.status} ${r.body}`);
    paused[i] = JSON.parse(r.body);
  });
  return { paused, perSecond: count / ((nowMs() - t0) / 1000) };
}

async function polls(ports, paused, connections, ms) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections * ports.length });
  const latencies = [];
  let next = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (nowMs() - started < ms) {
        const i = next++;
        const r = await send(agent, ports[i % ports.length], 'GET', paused[i % paused.length].status_url);
        if (r.status !== 200 || !r.body.includes('interaction_required'))
          throw new Error(`poll answered ${r.status} ${r.body}`);
        latencies.push(r.ms);
      }
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / ((nowMs() - started) / 1000),
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

/** On `port`: re-attach to a paused execution's stream, answer its prompt; the timings (answer-watch.js). */
async function answerOn(port, paused) {
  const r = await answerAndWatch({
    port,
    streamPath: `/executions/${paused.execution_id}/stream`,
    answerPath: paused.response_url,
    body: { response: { type: 'text', text: 'Ann' } },
  });
  if (!r.text.includes('Hello Ann')) throw new Error(`stream ended without the output: ${r.text}`);
  return r;
}

async function resumes(ports, paused, count) {
  const resumed = [];
  const completed = [];
  const answered = [];
  for (let i = 0; i < count; i++) {
    // Started on ports[i % n] (see park): answered and watched on the next replica.
    const r = await answerOn(ports[(i + 1) % ports.length], paused[i]);
    resumed.push(r.resumed);
    completed.push(r.completed);
    answered.push(r.answered);
  }
  return { resumed: stats(resumed), completed: stats(completed), answered: stats(answered) };
}

function stats(xs) {
  xs.sort((a, b) => a - b);
  return { p50: percentile(xs, 0.5), p99: percentile(xs, 0.99), max: xs[xs.length - 1] };
}

/** How many unended executions the store says `owner` runs (`execution_record.replica`). */
async function ownedCount(schema, owner) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select count(*)::int as n from ${schema}.execution_record
        where replica = $1 and status not in ('completed', 'failed')`,
      [owner],
    );
    return rows[0].n;
  } finally {
    await client.end();
  }
}

async function leaseOwnerOf(schema, id) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(`select replica from ${schema}.execution_record where id = $1`, [id]);
    return rows[0]?.replica ?? undefined;
  } catch {
    return undefined;
  } finally {
    await client.end();
  }
}

/** One store: park, measure the bytes, poll, resume; for postgres, then the SIGKILL take-over. */
async function measureStore(store, S, dir) {
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_replicas_${tag}`;
  const prefix = `interlude-bench:${tag}:`;
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://unused/none');
  url.searchParams.set('schema', schema);
  const file = path.join(dir, `replicas-${store}-${tag}.yml`);
  const write = (leaseSeconds) =>
    fs.writeFileSync(
      file,
      configYaml(store, { dbUrl: url.toString(), redisUrl: process.env.REDIS_URL, prefix, leaseSeconds }),
    );
  write(S.leaseSeconds);
  // A build without leases rejects lease_seconds: measure the rest without them.
  if (store === 'postgres' && !validates(file)) write(undefined);
  const replicas = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.parkInFlight });
  try {
    replicas.push(await startReplica(file, 'A'));
    if (store === 'postgres') replicas.push(await startReplica(file, 'B'));
    const ports = replicas.map((r) => r.port);
    // Warm-up: executions run to the end the way the measured ones are (re-attached and answered on the
    // next replica), a few at a time.
    const warm = await park(agent, ports, S.warm, S.parkInFlight);
    await pool(S.warm, 8, (i) => answerOn(ports[(i + 1) % ports.length], warm.paused[i]));
    const before =
      store === 'postgres' ? { pg: await pgBytes(schema), redis: await redisBytes(prefix) } : undefined;
    const parked = await park(agent, ports, S.waiting, S.parkInFlight);
    let bytes;
    if (before) {
      const after = { pg: await pgBytes(schema), redis: await redisBytes(prefix) };
      bytes = {
        pg: (after.pg - before.pg) / S.waiting,
        redis: (after.redis.bytes - before.redis.bytes) / S.waiting,
        redisKeys: (after.redis.keys - before.redis.keys) / S.waiting,
        redisKinds: Object.entries(after.redis.kinds)
          .map(([kind, used]) => [kind, (used - (before.redis.kinds[kind] ?? 0)) / S.waiting])
          .filter(([, used]) => used > 0),
      };
    }
    const poll = await polls(ports, parked.paused, S.pollConnections, S.pollMs);
    const resume = await resumes(ports, parked.paused, S.resumes);
    let floor;
    let takeover;
    if (store === 'postgres') {
      // Copies of as many records of executions still waiting: answered by bare processes.
      const idsOf = (from, count) => parked.paused.slice(from, from + count).map((p) => p.execution_id);
      const timings = await measureAnswerFloor(
        schema,
        prefix,
        idsOf(S.resumes, S.resumes),
        idsOf(2 * S.resumes, S.warm),
      );
      floor = { resumed: stats(timings.resumed), answered: stats(timings.answered) };
      takeover = await sigkillTakeover(agent, replicas, schema, S);
    }
    return { store, replicas: replicas.length, park: parked.perSecond, bytes, poll, resume, floor, takeover };
  } finally {
    agent.destroy();
    await Promise.all(replicas.map((r) => r.kill('SIGKILL')));
    if (store === 'postgres') await cleanup(schema, prefix);
  }
}

/** `orphans` executions parked on A, A killed: how long until B has claimed all of them. */
async function sigkillTakeover(agent, replicas, schema, S) {
  const [a] = replicas;
  const { paused } = await park(agent, [a.port], S.orphans, S.parkInFlight);
  const ids = paused.map((p) => p.execution_id);
  const deadOwner = await leaseOwnerOf(schema, ids[0]);
  if (deadOwner === undefined)
    return { unsupported: 'this build records no replica running an execution (execution_record.replica)' };
  // A also runs its share of the executions parked earlier: every one of them is an orphan.
  const orphans = await ownedCount(schema, deadOwner);
  await a.kill('SIGKILL');
  const t0 = nowMs();
  const deadline = t0 + 10 * S.leaseSeconds * 1000 + 60_000;
  for (;;) {
    const left = await ownedCount(schema, deadOwner);
    if (left === 0) return { ms: nowMs() - t0, count: orphans, fresh: ids.length };
    if (nowMs() > deadline) return { ms: NaN, count: orphans, fresh: ids.length, claimed: orphans - left };
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function measureReplicas({ quick = false } = {}) {
  const S = settings(quick);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-replicas-'));
  const rows = [];
  const skipped = [];
  try {
    rows.push(await measureStore('memory', S, dir));
    if (!process.env.DATABASE_URL || !process.env.REDIS_URL)
      skipped.push('the PostgreSQL/Redis store (DATABASE_URL or REDIS_URL is not set)');
    else rows.push(await measureStore('postgres', S, dir));
    const large = rows.some((x) => x.store === 'postgres') ? await measureLargeRequests(dir) : [];
    return { settings: S, rows, skipped, large };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { measureReplicas, replicasSection, HEADING };
