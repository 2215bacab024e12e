'use strict';
/**
 * The floor of bench/replicas.js's answer figures: the same answers, timed the same way, through two
 * bare processes that make only the network hops an answer across replicas makes (lib/floor-replica.js:
 * the record read on re-attach, the write's notice, the compared UPDATE, the 204, the wake-up, the
 * resumed event through a Redis Stream), on a copy of the store's own records table. What the
 * replicas add to it is Interlude's own work; the floor itself is this machine's.
 */
const { spawn } = require('node:child_process');
const http = require('node:http');
const path = require('node:path');
const { Client } = require('pg');
const { nowMs, send } = require('./lib/clients');
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

/** Re-attach to `id`'s stream on B, answer at its prompt frame; the 204 and the next frame, timed. */
function answerAndWatch(port, id) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: `/stream/${id}` });
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      let t0;
      let answered;
      let resumed;
      res.setEncoding('utf8');
      res.on('data', (chunk) => {
        text += chunk;
        if (t0 !== undefined && resumed === undefined) resumed = nowMs() - t0;
        if (t0 === undefined && text.includes('event: interaction_required')) {
          t0 = nowMs();
          send(undefined, port, 'POST', `/answer/${id}`).then((r) => {
            if (r.status !== 204) reject(new Error(`floor answer: ${r.status} ${r.body}`));
            answered = nowMs() - t0;
          }, reject);
        }
      });
      res.on('end', () => {
        const done = () => (answered === undefined ? setTimeout(done, 1) : resolve({ resumed, answered }));
        done();
      });
    });
    req.end();
  });
}

/**
 * `ids`: records of waiting executions in `schema` (copied, not touched). Returns the answers' timings
 * in the shape bench/replicas.js reports: `{ resumed, answered }`, each a list of ms.
 */
async function measureAnswerFloor(schema, prefix, ids) {
  const table = `${schema}.floor_record`;
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const replicas = [];
  try {
    await db.query(`create table ${table} (like ${schema}.execution_record including all)`);
    await db.query(`insert into ${table} select * from ${schema}.execution_record where id = any($1)`, [ids]);
    replicas.push(await startFloorReplica('A', table, prefix));
    replicas.push(await startFloorReplica('B', table, prefix));
    const b = replicas[1];
    const timings = { resumed: [], answered: [] };
    for (const id of ids) {
      const r = await answerAndWatch(b.port, id);
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
