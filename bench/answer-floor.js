'use strict';
/**
 * The floor of bench/replicas.js's answer figures: the same answers, timed the same way, through two
 * bare processes that make only the network hops an answer across replicas makes (lib/floor-replica.js:
 * the record read on re-attach, the write's notice, the compared UPDATE, the 204, the wake-up, the
 * resumed event through a Redis Stream), on a copy of the store's own records table. What the
 * replicas add to it is Interlude's own work; the floor itself is this machine's.
 */
const { spawn } = require('node:child_process');
const path = require('node:path');
const { Client } = require('pg');
const { answerAndWatch } = require('./lib/answer-watch');
const { SERVER_CORE, TASKSET, freePort } = require('./lib/servers');

const FLOOR_REPLICA = path.join(__dirname, 'lib', 'floor-replica.js');

async function startFloorReplica(role, table, prefix) {
  const port = await freePort();
  const argv = [FLOOR_REPLICA, String(port), role, table, prefix];
  // Pinned as the replicas are: their core, beside each other.
  const [cmd, args] = TASKSET
    ? [TASKSET, ['-c', SERVER_CORE, process.execPath, ...argv]]
    : [process.execPath, argv];
  const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`floor replica ${role} exited with ${code}`)));
  });
  return { port, stop: () => child.kill('SIGKILL') };
}

/**
 * `ids`: records of waiting executions in `schema` (copied, not touched); `warm`: more of them, answered
 * first (one at a time) and not timed, as the replicas are warmed up. Returns the answers' timings in
 * the shape bench/replicas.js reports: `{ resumed, answered }`, each a list of ms.
 */
async function measureAnswerFloor(schema, prefix, ids, warm = []) {
  const table = `${schema}.floor_record`;
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const replicas = [];
  try {
    await db.query(`create table ${table} (like ${schema}.execution_record including all)`);
    await db.query(`insert into ${table} select * from ${schema}.execution_record where id = any($1)`, [
      [...warm, ...ids],
    ]);
    replicas.push(await startFloorReplica('A', table, prefix));
    replicas.push(await startFloorReplica('B', table, prefix));
    const b = replicas[1];
    const answer = (id) =>
      answerAndWatch({ port: b.port, streamPath: `/stream/${id}`, answerPath: `/answer/${id}` });
    // One at a time: B makes its queries on one connection.
    for (const id of warm) await answer(id);
    const timings = { resumed: [], answered: [] };
    for (const id of ids) {
      const r = await answer(id);
      timings.resumed.push(r.resumed);
      timings.answered.push(r.answered);
    }
    return timings;
  } finally {
    for (const r of replicas) r.stop();
    await db.query(`drop table if exists ${table}`);
    await db.end();
  }
}

module.exports = { measureAnswerFloor };
