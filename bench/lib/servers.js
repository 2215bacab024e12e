'use strict';
const net = require('node:net');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const CHILD = path.join(__dirname, '..', 'child.js');
const CLIENT_CORE = '0';
const SERVER_CORE = '1';

const TASKSET = (() => {
  const found = spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
})();

/**
 * Starts bench/child.js as its own (pinned) process and waits for its port. `nodeArgs` go to that
 * node (e.g. `--expose-gc` for memory samples).
 */
function startServer(name, variant, { nodeArgs = [] } = {}) {
  const argv = [...nodeArgs, CHILD, name, ...(variant ? [variant] : [])];
  const [cmd, cmdArgs] = TASKSET
    ? [TASKSET, ['-c', SERVER_CORE, process.execPath, ...argv]]
    : [process.execPath, argv];
  const child = spawn(cmd, cmdArgs, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiters = [];
  child.on('message', (msg) => waiters.shift()?.(msg));
  const request = (msg) =>
    new Promise((resolve) => {
      waiters.push(resolve);
      child.send(msg);
    });
  return new Promise((resolve, reject) => {
    const onExit = (code) =>
      reject(
        new Error(
          `${name} exited with ${code} before it was ready (BENCH_LOG=1 node bench/run.js --quick shows Nest's errors)`,
        ),
      );
    child.once('exit', onExit);
    waiters.push((msg) => {
      child.off('exit', onExit);
      resolve({
        name,
        port: msg.port,
        pid: child.pid,
        cpuMicros: async () => {
          const { usage } = await request({ type: 'cpu' });
          return usage.user + usage.system;
        },
        /** `{gc, usage}`: process.memoryUsage() of the server, after a full GC when `gc` (--expose-gc). */
        memory: () => request({ type: 'memory' }),
        profileStart: () => request({ type: 'profile-start' }),
        profileStop: (file) => request({ type: 'profile-stop', file }),
        heapSnapshot: (file) => request({ type: 'heap-snapshot', file }),
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
            child.once('exit', () => {
              clearTimeout(timer);
              done();
            });
            child.send({ type: 'stop' });
          }),
      });
    });
  });
}

function affinity(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    return /Cpus_allowed_list:\s*(\S+)/.exec(status)?.[1] ?? '?';
  } catch {
    return '?';
  }
}

/** A TCP port free on 127.0.0.1 right now (for a server told its port on the command line). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

module.exports = { ROOT, CLIENT_CORE, SERVER_CORE, TASKSET, startServer, affinity, freePort };
