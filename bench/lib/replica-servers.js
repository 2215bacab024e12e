'use strict';
/** Real `interlude serve` processes on the shared store, and what they keep in PostgreSQL and Redis. */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { send } = require('./clients');
const { ROOT, SERVER_CORE, TASKSET, freePort } = require('./servers');

const CLI = path.join(ROOT, 'dist', 'cli.js');
const PROFILE_PRELOAD = path.join(__dirname, 'profile-on-signal.js');

/**
 * An `interlude serve` process for config `file`. With `profile` (a file path), the replica can record
 * a V8 CPU profile of a window: `profileStart()`, then `profileStop()` resolves once `profile` is written.
 */
async function startReplica(file, name, { profile } = {}) {
  const port = await freePort();
  const argv = [
    ...(profile ? ['-r', PROFILE_PRELOAD] : []),
    CLI,
    'serve',
    '--config',
    file,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
  ];
  const [cmd, args] = TASKSET
    ? [TASKSET, ['-c', SERVER_CORE, process.execPath, ...argv]]
    : [process.execPath, argv];
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'warn', NO_COLOR: '1', BENCH_PROFILE_FILE: profile ?? '' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-8000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`replica ${name} exited: ${stderr}`);
    const ok = await send(undefined, port, 'GET', '/health/ready').then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`replica ${name} not ready in 30 s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    name,
    port,
    /** CPU time the process used so far, µs (procCpuMicros; taskset execs node in place). */
    cpuMicros: () => procCpuMicros(child.pid),
    /** How many times the process's threads gave up a core to wait so far (each wait ends in a wake-up). */
    wakeUps: () => procWakeUps(child.pid),
    ...(profile && {
      profileStart: () => signalled(child, `${profile}.started`),
      profileStop: async () => {
        await signalled(child, profile);
        fs.rmSync(`${profile}.started`, { force: true });
      },
    }),
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** Sends SIGWINCH (bench/lib/profile-on-signal.js) and waits for the file that says it was handled. */
async function signalled(child, file) {
  fs.rmSync(file, { force: true });
  child.kill('SIGWINCH');
  const deadline = Date.now() + 30_000;
  while (!fs.existsSync(file)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`replica did not write ${file}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The sum over the process's threads of `valueOf(/proc/<pid>/task/<tid>/<file>)`; NaN once the process
 * is gone. Threads that ended before the read are not counted.
 */
function overThreads(pid, file, valueOf) {
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return NaN;
  }
  let sum = 0;
  for (const tid of tids) {
    try {
      sum += valueOf(fs.readFileSync(`/proc/${pid}/task/${tid}/${file}`, 'utf8'));
    } catch {
      // The thread ended between the two reads.
    }
  }
  return sum;
}

/**
 * CPU time the process's threads spent on a core so far, µs: the scheduler's own count in ns
 * (schedstat), not /proc/<pid>/stat's user + system time, which this kernel keeps in 10 ms ticks
 * charged to whoever runs when a tick falls (a replica using 500 ms over a window reads ±10 % from one
 * window to the next).
 */
function procCpuMicros(pid) {
  return overThreads(pid, 'schedstat', (text) => Number(text.split(' ')[0])) / 1000;
}

/** The voluntary context switches of the process's threads so far (each wait ends in a wake-up). */
function procWakeUps(pid) {
  return overThreads(pid, 'status', (text) =>
    Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(text)?.[1] ?? 0),
  );
}

async function pgBytes(schema) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint as bytes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind in ('r', 'm')`,
      [schema],
    );
    return Number(rows[0].bytes);
  } finally {
    await client.end();
  }
}

async function redisBytes(prefix) {
  const { Redis } = require('ioredis');
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true });
  let bytes = 0;
  let keys = 0;
  /** Bytes by kind of key: the key with its execution id (in braces, a hash tag) left out. */
  const kinds = {};
  try {
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of batch) {
        const used = Number((await redis.memory('USAGE', key, 'SAMPLES', '0')) ?? 0);
        const kind = `${key.slice(prefix.length).replace(/\{[^}]*\}/g, '{id}')} (${await redis.type(key)})`;
        kinds[kind] = (kinds[kind] ?? 0) + used;
        bytes += used;
        keys++;
      }
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return { bytes, keys, kinds };
}

async function cleanup(schema, prefix) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query(`drop schema if exists ${schema} cascade`);
  await client.end();
  const { Redis } = require('ioredis');
  const redis = new Redis(process.env.REDIS_URL, { lazyConnect: true });
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== '0');
  redis.disconnect();
}

module.exports = { CLI, startReplica, pgBytes, redisBytes, cleanup };
