'use strict';
/**
 * One server under test, run as its own process (pinned to its own core by run.js). Usage:
 *   node bench/child.js <server> [variant]
 * Reports {type:'ready', port} over IPC, answers {type:'cpu'} with process.cpuUsage() and exits on
 * {type:'stop'} (exiting normally, so `--cpu-prof` writes its profile).
 */
const path = require('node:path');

async function main() {
  const [name, variant] = process.argv.slice(2);
  const start = require(path.join(__dirname, 'servers', `${name}.js`));
  const server = await start(variant);
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  process.on('message', (msg) => {
    if (msg.type === 'cpu') process.send({ type: 'cpu', usage: process.cpuUsage() });
    if (msg.type === 'stop') {
      server.closeAllConnections?.();
      server.close(() => process.exit(0));
    }
  });
  process.on('disconnect', () => process.exit(0));
  process.send({ type: 'ready', port: server.address().port });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
