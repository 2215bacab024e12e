'use strict';
/**
 * Footprint per waiting execution on the shared store (`general.executions.store: postgres`): one
 * `interlude serve` process parks `waiting` executions on a prompt (POST /v1/workflow → 202), then
 *
 *  - Redis: MEMORY USAGE (SAMPLES 0: every element) of each key under the deployment's prefix, after
 *    less before, per execution, by kind of key;
 *  - PostgreSQL: pg_total_relation_size of each table of the schema (heap, TOAST, indexes), after less
 *    before (the tables settled before and after: `settle`), per execution; and the average
 *    pg_column_size of each column of the rows the waiting executions left (what the heap holds of
 *    them, before page and index overhead).
 *
 * Bytes, not time: the machine's load does not change them. Run by `node bench/run.js --only footprint`.
 */
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { pool, send } = require('./lib/clients');
const { fmt, table } = require('./lib/report');
const { cleanup, redisBytes, startReplica } = require('./lib/replica-servers');

const HEADING = '## Footprint per waiting execution on the shared store';
const TARGET = { redis: 3000, pg: 1500 };

const WORKFLOW = `workflow:
  _type: scripted
  steps:
    - prompt: { input_type: text, text: 'Your name?', save_as: name }
    - stream: { text: 'hi {{name}}' }
  output: 'Hello {{name}}'
`;

function configYaml({ dbUrl, redisUrl, prefix }) {
  return `general:
  max_waiting_executions: 100000
  max_waiting_executions_per_user: 100000
  max_anonymous_waiting_executions: 100000
  max_waiting_executions_per_address: 100000
  db_url: '${dbUrl}'
  executions:
    store: postgres
    redis_url: '${redisUrl}'
    redis_key_prefix: '${prefix}'
${WORKFLOW}`;
}

async function withPg(fn) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** pg_total_relation_size of each table of `schema`. */
function tableBytes(schema) {
  return withPg(async (client) => {
    const { rows } = await client.query(
      `select c.relname as name, pg_total_relation_size(c.oid)::bigint as bytes
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = $1 and c.relkind = 'r'`,
      [schema],
    );
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  });
}

/**
 * Settles the schema's tables so that two sizes taken around a load differ by what it stored, not by
 * when PostgreSQL happened to vacuum or how far ahead it grew a file: `full` rewrites each table
 * compactly (the warm-up's dead rows gone, so new rows do not fill their space); otherwise a plain VACUUM
 * gives back the empty pages at a file's end (added ahead of concurrent inserts), moving no row.
 */
async function settle(schema, full) {
  const names = Object.keys(await tableBytes(schema));
  return withPg(async (client) => {
    for (const name of names) {
      // The plain VACUUM after the full one makes the free-space and visibility maps that the one
      // after the load finds: the two sizes hold the same forks.
      if (full) await client.query(`vacuum (full) ${schema}.${name}`);
      await client.query(`vacuum ${schema}.${name}`);
    }
  });
}

/** The average pg_column_size of each column of `table`'s rows for these executions. */
function columnBytes(schema, table, idColumn, ids) {
  return withPg(async (client) => {
    const { rows: cols } = await client.query(
      `select column_name from information_schema.columns where table_schema = $1 and table_name = $2
        order by ordinal_position`,
      [schema, table],
    );
    const sums = cols
      .map((c, i) => `coalesce(sum(pg_column_size("${c.column_name}")), 0)::bigint as c${i}`)
      .join(', ');
    const { rows } = await client.query(
      `select count(*)::bigint as rows, ${sums} from ${schema}.${table} where ${idColumn} = any($1)`,
      [ids],
    );
    const [row] = rows;
    if (process.env.BENCH_FOOTPRINT_SAMPLE) {
      const sample = await client.query(`select * from ${schema}.${table} where ${idColumn} = $1`, [ids[0]]);
      console.log(table, JSON.stringify(sample.rows, null, 1));
    }
    const columns = cols.map((c, i) => [c.column_name, Number(row[`c${i}`]) / ids.length]);
    return { rows: Number(row.rows), columns };
  });
}

/** Prints what Redis holds for one execution (BENCH_FOOTPRINT_SAMPLE=1: to see what is duplicated). */
async function sampleRedis(prefix, id) {
  const { Redis } = require('ioredis');
  const redis = new Redis(process.env.REDIS_URL);
  try {
    for (const key of await redis.keys(`${prefix}*${id}*`)) {
      const type = await redis.type(key);
      const value =
        type === 'stream'
          ? await redis.xrange(key, '-', '+')
          : type === 'zset'
            ? await redis.zrange(key, 0, -1, 'WITHSCORES')
            : await redis.dump(key);
      console.log(key, type, await redis.memory('USAGE', key, 'SAMPLES', '0'), JSON.stringify(value));
    }
  } finally {
    redis.disconnect();
  }
}

async function measureFootprint({ quick = false } = {}) {
  const S = { waiting: quick ? 200 : 1000, inFlight: 50 };
  if (!process.env.DATABASE_URL || !process.env.REDIS_URL) {
    return { settings: S, skipped: 'DATABASE_URL and REDIS_URL are needed' };
  }
  const tag = randomBytes(4).toString('hex');
  const schema = `bench_footprint_${tag}`;
  const prefix = `interlude-bench:${tag}:`;
  const url = new URL(process.env.DATABASE_URL);
  url.searchParams.set('schema', schema);
  const file = path.join(os.tmpdir(), `footprint-${tag}.yml`);
  fs.writeFileSync(file, configYaml({ dbUrl: url.toString(), redisUrl: process.env.REDIS_URL, prefix }));
  const agent = new http.Agent({ keepAlive: true, maxSockets: S.inFlight });
  let server;
  try {
    server = await startReplica(file, 'A');
    const park = async (count) => {
      const paused = [];
      await pool(count, S.inFlight, async (i) => {
        const r = await send(agent, server.port, 'POST', '/v1/workflow', { input_message: 'x' });
        if (r.status !== 202) throw new Error(`start answered ${r.status} ${r.body}`);
        paused[i] = JSON.parse(r.body);
      });
      return paused;
    };
    // Warm-up: 50 executions run to the end (tables and Redis structures exist before the baseline).
    const warm = await park(50);
    await pool(warm.length, 20, (i) =>
      send(agent, server.port, 'POST', warm[i].response_url, { response: { type: 'text', text: 'w' } }),
    );
    await settle(schema, true);
    const before = { pg: await tableBytes(schema), redis: await redisBytes(prefix) };
    const parked = await park(S.waiting);
    await settle(schema, false);
    const after = { pg: await tableBytes(schema), redis: await redisBytes(prefix) };
    if (process.env.BENCH_FOOTPRINT_SAMPLE) await sampleRedis(prefix, parked[0].execution_id);
    const ids = parked.map((p) => p.execution_id);
    const per = (a, b) => (a - (b ?? 0)) / S.waiting;
    const pgTables = Object.entries(after.pg)
      .map(([name, bytes]) => [name, per(bytes, before.pg[name])])
      .filter(([, b]) => b !== 0);
    const redisKinds = Object.entries(after.redis.kinds)
      .map(([kind, used]) => [kind, per(used, before.redis.kinds[kind])])
      .filter(([, b]) => b !== 0);
    return {
      settings: S,
      redis: per(after.redis.bytes, before.redis.bytes),
      redisKeys: per(after.redis.keys, before.redis.keys),
      redisKinds,
      pg: pgTables.reduce((sum, [, b]) => sum + b, 0),
      pgTables,
      record: await columnBytes(schema, 'execution_record', 'id', ids),
      journal: await columnBytes(schema, 'execution_journal', 'execution_id', ids),
    };
  } finally {
    agent.destroy();
    await server?.kill('SIGKILL');
    fs.rmSync(file, { force: true });
    await cleanup(schema, prefix);
  }
}

function footprintSection(env, r, { quick = false } = {}) {
  if (r.skipped) return { text: `${HEADING}\n\n- Not measured: ${r.skipped}.\n`, passed: 0, total: 0 };
  const S = r.settings;
  const passed = (r.redis <= TARGET.redis ? 1 : 0) + (r.pg <= TARGET.pg ? 1 : 0);
  const rows = [
    ["Redis, MEMORY USAGE of the prefix's keys", fmt(r.redis), `≤ ${fmt(TARGET.redis)}`],
    ...r.redisKinds.map(([kind, b]) => [`  of which \`${kind}\``, fmt(b), '']),
    ['PostgreSQL, pg_total_relation_size of the schema', fmt(r.pg), `≤ ${fmt(TARGET.pg)}`],
    ...r.pgTables.map(([name, b]) => [`  of which \`${name}\` (heap, TOAST, indexes)`, fmt(b), '']),
    ...r.record.columns.map(([c, b]) => [`    \`execution_record.${c}\` (pg_column_size)`, fmt(b), '']),
    [`  journal rows per execution`, fmt(r.journal.rows / S.waiting, 2), ''],
    ...r.journal.columns.map(([c, b]) => [`    \`execution_journal.${c}\` (pg_column_size)`, fmt(b), '']),
  ];
  const text = `${HEADING}

- Command: \`node bench/run.js --only footprint\`${quick ? ' (--quick)' : ''}
- Date: ${env.date}; commit ${env.commit}
- One \`interlude serve\` process on \`store: postgres\` (its own schema and Redis key prefix) parks
  ${fmt(S.waiting)} executions on a prompt (\`POST /v1/workflow\` → 202; the scripted workflow of "Several
  replicas"), after 50 run to the end; bytes after less before, per waiting execution. Redis: MEMORY
  USAGE (SAMPLES 0) of every key under the prefix, ${fmt(r.redisKeys, 1)} keys per execution.
  PostgreSQL: pg_total_relation_size of each table, and the average pg_column_size of each column of
  these executions' rows (the values, before row headers, pages and indexes); before, each table is
  rewritten compactly (\`VACUUM (FULL)\`: the warm-up's dead rows would otherwise take new rows in),
  after, a plain \`VACUUM\` gives back the empty pages PostgreSQL added ahead at each file's end
  (otherwise one run read 582 bytes and the next 1,942 for the same rows).
- Targets: ≤ ${fmt(TARGET.redis)} bytes in Redis and ≤ ${fmt(TARGET.pg)} in PostgreSQL per waiting execution (met: ${passed}/2).

${table(['bytes per waiting execution', 'bytes', 'target'], rows)}
`;
  return { text, passed, total: 2 };
}

module.exports = { HEADING, measureFootprint, footprintSection };
