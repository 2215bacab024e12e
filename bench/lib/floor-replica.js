'use strict';
/**
 * The network hops of an answer across two replicas of the shared store, with nothing of Interlude in
 * them: what bench/replicas.js's answer figures cannot go below on this machine. Run by
 * bench/answer-floor.js, pinned like the replicas:
 *   node bench/lib/floor-replica.js <port> <A|B> <table> <prefix>    (DATABASE_URL, REDIS_URL)
 *
 * B serves `GET /stream/{id}`: it reads the record's text (as a replica reads a record it re-attaches
 * to), sends an SSE prompt frame, then relays the entries of the Redis Stream `{prefix}events:{id}`,
 * read with XREAD BLOCK on a connection of its own, and ends after the first. It serves
 * `POST /answer/{id}`: a PUBLISH to A (the write's notice, before it commits), an UPDATE of the record
 * compared with the text it read (the answer's commit), the 204, then a PUBLISH of the wake-up to A.
 * A, subscribed to both, parses each notice and appends one entry to the stream per wake-up (the
 * resumed workflow's first event).
 */
const http = require('node:http');
const { setImmediate } = require('node:timers');
const { Client } = require('pg');
const Redis = require('ioredis');

const [port, role, table, prefix] = process.argv.slice(2);
const channel = (topic) => `${prefix}floor:${topic}`;

async function runA() {
  const commands = new Redis(process.env.REDIS_URL);
  const subscriber = new Redis(process.env.REDIS_URL);
  await subscriber.subscribe(channel('notice'), channel('wake'));
  subscriber.on('message', (from, message) => {
    if (from === channel('notice')) return void JSON.parse(message);
    const { id } = JSON.parse(message);
    void commands.xadd(
      `${prefix}floor:events:${id}`,
      '*',
      'e',
      JSON.stringify({ kind: 'output', value: 'hi' }),
    );
  });
}

async function runB() {
  const db = new Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const redis = new Redis(process.env.REDIS_URL);
  // Connections for XREAD BLOCK, kept between streams (as the replicas keep theirs).
  const idle = [];
  const seen = new Map();

  async function stream(id, res) {
    const { rows } = await db.query(`select record::text as text from ${table} where id = $1`, [id]);
    seen.set(id, rows[0].text);
    const follower = idle.pop() ?? new Redis(process.env.REDIS_URL);
    await follower.ping();
    // Blocked before the prompt is shown: what A appends after the answer comes back at once.
    const reading = follower.xread('BLOCK', 10_000, 'STREAMS', `${prefix}floor:events:${id}`, '0-0');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: interaction_required\ndata: {}\n\n');
    const reply = await reading;
    idle.push(follower);
    res.end(`data: ${reply ? reply[0][1][0][1][1] : '{}'}\n\n`);
  }

  async function answer(id, res) {
    const before = seen.get(id);
    const after = JSON.stringify({ ...JSON.parse(before), status: 'running', answered: true });
    await redis.publish(channel('notice'), JSON.stringify({ id, text: after }));
    const updated = await db.query(
      `update ${table} set status = 'running', waiting = false, record = $2 where id = $1 and record::text = $3`,
      [id, after, before],
    );
    res.writeHead(updated.rowCount === 1 ? 204 : 409).end();
    setImmediate(() => void redis.publish(channel('wake'), JSON.stringify({ id })));
  }

  http
    .createServer((req, res) => {
      const [, what, id] = req.url.split('/');
      req.resume();
      req.on('end', () => {
        const done = what === 'stream' ? stream(id, res) : answer(id, res);
        done.catch((err) => res.writeHead(500).end(String(err)));
      });
    })
    .listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
}

(role === 'A' ? runA().then(() => process.send?.('ready')) : runB()).catch((err) => {
  console.error(err);
  process.exit(1);
});
