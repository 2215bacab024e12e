'use strict';
/**
 * Async jobs (echo workflow, a no-op): jobs accepted per second (POST /v1/workflow/async, 202) and
 * completed per second (from the first submit until none is submitted or running), with the jobs run
 * in the server (`in_process`, SQLite file) and by two `interlude worker` processes (BullMQ on Redis
 * when REDIS_URL is set, on PostgreSQL when DATABASE_URL is set; rows in PostgreSQL); then status polls
 * per second (GET /v1/workflow/async/job/{id}, cycling through the jobs) against a bare NestJS GET route.
 *
 * Run by `npm run bench` (bench/run.js --only jobs); --quick submits fewer jobs.
 */
const { spawn } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { nowMs, percentile, pool, send } = require('./lib/clients');
const { ROOT, SERVER_CORE, TASKSET, startServer } = require('./lib/servers');
const { fmt, ratio, table } = require('./lib/report');

const HEADING = '## Async jobs';
const CLI = path.join(ROOT, 'dist', 'cli.js');

function settings(quick) {
  return { jobs: quick ? 300 : 2000, concurrency: 50, pollConnections: 50, pollMs: quick ? 2000 : 5000 };
}

/** `connections` keep-alive clients GETting `pathOf(i)` back to back for `ms`. */
async function polls(port, pathOf, connections, ms) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const latencies = [];
  let next = 0;
  const started = nowMs();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (nowMs() - started < ms) {
        const r = await send(agent, port, 'GET', pathOf(next++));
        if (r.status !== 200) throw new Error(`poll answered ${r.status} ${r.body}`);
        latencies.push(r.ms);
      }
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const seconds = (nowMs() - started) / 1000;
  return {
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
  };
}

function yamlFor(queue, dbUrl, prefix) {
  const async =
    queue === 'in_process'
      ? ''
      : `  async: { queue: ${queue}, queue_prefix: ${prefix}, queue_name: bench }\n`;
  return `general:\n  db_url: '${dbUrl}'\n${async}workflow:\n  _type: echo\n`;
}

function startWorker(file, name) {
  const [cmd, args] = TASKSET
    ? [TASKSET, ['-c', SERVER_CORE, process.execPath, CLI, 'worker', '--config', file]]
    : [process.execPath, [CLI, 'worker', '--config', file]];
  const child = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('Interlude worker ready')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`worker ${name} exited (${code}): ${out}`)));
  });
}

/** One backend: submit every job, wait for all to end, then poll their statuses. */
async function measureBackend(backend, S, dir) {
  const tag = randomBytes(4).toString('hex');
  let dbUrl = `sqlite:${path.join(dir, `jobs-${tag}.db`)}`;
  let schema;
  if (backend !== 'in_process') {
    const url = new URL(process.env.DATABASE_URL);
    schema = `bench_jobs_${tag}`;
    url.searchParams.set('schema', schema);
    dbUrl = url.toString();
  }
  const yaml = yamlFor(backend, dbUrl, `bench_${tag}`);
  const file = path.join(dir, `jobs-${tag}.yml`);
  fs.writeFileSync(file, yaml);
  process.env.BENCH_JOBS_YAML = yaml;
  const server = await startServer('interlude-jobs', backend);
  const workers =
    backend === 'in_process' ? [] : await Promise.all([startWorker(file, 'w1'), startWorker(file, 'w2')]);
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.concurrency });
  try {
    const ids = Array.from({ length: S.jobs }, (_, i) => `job-${i}`);
    const t0 = nowMs();
    await pool(S.jobs, S.concurrency, async (i) => {
      const r = await send(agent, server.port, 'POST', '/v1/workflow/async', {
        message: 'x',
        job_id: ids[i],
      });
      if (r.status !== 202) throw new Error(`submit answered ${r.status} ${r.body}`);
    });
    const acceptedMs = nowMs() - t0;
    for (;;) {
      const busy = await Promise.all(
        ['submitted', 'running'].map((s) =>
          send(agent, server.port, 'GET', `/v1/workflow/async/jobs?status=${s}&limit=1`).then(
            (r) => JSON.parse(r.body).jobs.length,
          ),
        ),
      );
      if (busy[0] + busy[1] === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const completedMs = nowMs() - t0;
    const last = JSON.parse(
      (await send(agent, server.port, 'GET', `/v1/workflow/async/job/${ids[S.jobs - 1]}`)).body,
    );
    if (last.status !== 'success') throw new Error(`last job ended ${JSON.stringify(last)}`);
    const poll = await polls(
      server.port,
      (i) => `/v1/workflow/async/job/${ids[i % S.jobs]}`,
      S.pollConnections,
      S.pollMs,
    );
    return {
      backend,
      accepted: S.jobs / (acceptedMs / 1000),
      completed: S.jobs / (completedMs / 1000),
      poll,
    };
  } finally {
    agent.destroy();
    for (const w of workers) w.kill('SIGTERM');
    await server.stop();
    if (schema) await dropSchemas(schema, `bullmq_bench_${tag}`);
  }
}

async function dropSchemas(...schemas) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  for (const s of schemas) await client.query(`drop schema if exists ${s} cascade`);
  await client.end();
}

function redisUsable() {
  try {
    require.resolve('ioredis');
    return Boolean(process.env.REDIS_URL);
  } catch {
    return false;
  }
}

async function measureJobs({ quick = false } = {}) {
  const S = settings(quick);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'interlude-bench-jobs-'));
  const rows = [];
  const skipped = [];
  try {
    rows.push(await measureBackend('in_process', S, dir));
    if (!process.env.DATABASE_URL) skipped.push('two workers (DATABASE_URL is not set)');
    else {
      if (redisUsable()) rows.push(await measureBackend('redis', S, dir));
      else skipped.push('BullMQ on Redis (REDIS_URL unset or the ioredis package missing)');
      rows.push(await measureBackend('postgres', S, dir));
    }
    const nest = await startServer('nest', 'get');
    try {
      const bare = await polls(nest.port, (i) => `/executions/id-${i}`, S.pollConnections, S.pollMs);
      return { settings: S, rows, bare, skipped };
    } finally {
      await nest.stop();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const LABEL = {
  in_process: 'in the server (in_process, SQLite)',
  redis: 'two workers, BullMQ on Redis, rows in PostgreSQL',
  postgres: 'two workers, BullMQ on PostgreSQL, rows in PostgreSQL',
};

function jobsSection(env, r, { quick = false, pin = '' } = {}) {
  const S = r.settings;
  const rows = r.rows.map((x) => [
    LABEL[x.backend],
    fmt(x.accepted),
    fmt(x.completed),
    fmt(x.poll.rps),
    `${fmt(x.poll.p50, 1)} / ${fmt(x.poll.p99, 1)} ms`,
    ratio(x.poll.rps, r.bare.rps),
  ]);
  rows.push([
    'bare NestJS GET route (baseline)',
    '',
    '',
    fmt(r.bare.rps),
    `${fmt(r.bare.p50, 1)} / ${fmt(r.bare.p99, 1)} ms`,
    '1.00×',
  ]);
  const text = `${HEADING}

- Command: \`node bench/run.js --only jobs\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; ${pin}
- ${fmt(S.jobs)} jobs of the echo workflow, ${S.concurrency} submits in flight; status polls: ${S.pollConnections} keep-alive clients for ${S.pollMs / 1000} s
${r.skipped.map((s) => `- Not measured: ${s}\n`).join('')}
${table(['where jobs run', 'accepted/s', 'completed/s', 'status polls/s', 'poll p50 / p99', 'polls vs bare Nest'], rows)}
`;
  return { text, passed: 0, total: 0 };
}

module.exports = { measureJobs, jobsSection, HEADING };
