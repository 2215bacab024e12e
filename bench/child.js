'use strict';
/**
 * One server under test, run as its own process (pinned to its own core by run.js). Usage:
 *   node bench/child.js <server> [variant]
 * IPC protocol: sends {type:'ready', port}; answers {type:'cpu'} with process.cpuUsage();
 * {type:'profile-start'} / {type:'profile-stop', file} record a V8 CPU profile of just the measured
 * window (node:inspector); {type:'memory'} answers process.memoryUsage(), taken after a full GC when
 * the child runs with --expose-gc ({gc: true|false} in the answer says which); {type:'heap-snapshot',
 * file} writes a V8 heap snapshot; {type:'stop'} closes the server and exits.
 */
const fs = require('node:fs');
const path = require('node:path');

let session;

function post(method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

async function onMessage(server, msg) {
  if (msg.type === 'cpu') {
    process.send({ type: 'cpu', usage: process.cpuUsage() });
  } else if (msg.type === 'memory') {
    const gc = typeof globalThis.gc === 'function';
    if (gc) {
      // Twice: the first pass can leave objects that only die once their finalizers have run.
      globalThis.gc();
      await require('node:timers/promises').setImmediate();
      globalThis.gc();
    }
    process.send({ type: 'memory', gc, usage: process.memoryUsage() });
  } else if (msg.type === 'heap-snapshot') {
    const file = require('node:v8').writeHeapSnapshot(msg.file);
    process.send({ type: 'heap-snapshot-written', file });
  } else if (msg.type === 'profile-start') {
    const inspector = require('node:inspector');
    session = new inspector.Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval: 100 });
    await post('Profiler.start');
    process.send({ type: 'profile-started' });
  } else if (msg.type === 'profile-stop') {
    const { profile } = await post('Profiler.stop');
    session.disconnect();
    fs.writeFileSync(msg.file, JSON.stringify(profile));
    process.send({ type: 'profile-written', file: msg.file });
  } else if (msg.type === 'stop') {
    server.closeAllConnections?.();
    server.close(() => process.exit(0));
  }
}

async function main() {
  const [name, variant] = process.argv.slice(2);
  const start = require(path.join(__dirname, 'servers', `${name}.js`));
  const server = await start(variant);
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  process.on('message', (msg) =>
    onMessage(server, msg).catch((err) => {
      console.error(err);
      process.exit(1);
    }),
  );
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', port: server.address().port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
