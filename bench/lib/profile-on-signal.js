'use strict';
/**
 * Preloaded (`node -r`) into a server the bench cannot change (`interlude serve`), to take a V8 CPU
 * profile of just a measured window: the first SIGWINCH starts the profiler, the next one stops it and
 * writes the profile to BENCH_PROFILE_FILE (renamed into place, so a reader never sees half a file).
 * `--cpu-prof` would not do: it writes at a clean exit, and Nest's shutdown hook ends the process by
 * re-raising SIGTERM. SIGWINCH as Nest's hooks take SIGUSR2 and SIGUSR1 opens the inspector; a process
 * without a terminal ignores it otherwise. `<file>.started` tells the bench that sampling has begun.
 */
const fs = require('node:fs');
const inspector = require('node:inspector');

const file = process.env.BENCH_PROFILE_FILE;
const interval = Number(process.env.BENCH_PROFILE_INTERVAL_US) || 500;
let session;

function post(method, params) {
  return new Promise((resolve, reject) =>
    session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))),
  );
}

async function toggle() {
  if (!session) {
    session = new inspector.Session();
    session.connect();
    await post('Profiler.enable');
    await post('Profiler.setSamplingInterval', { interval });
    await post('Profiler.start');
    fs.writeFileSync(`${file}.started`, '');
    return;
  }
  const { profile } = await post('Profiler.stop');
  session.disconnect();
  session = undefined;
  fs.writeFileSync(`${file}.part`, JSON.stringify(profile));
  fs.renameSync(`${file}.part`, file);
}

if (file)
  process.on('SIGWINCH', () =>
    toggle().catch((err) => process.stderr.write(`profile-on-signal: ${err.stack}\n`)),
  );
