'use strict';
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', '..', 'dist');

/**
 * Interlude with async jobs on the echo workflow (a no-op): variant `in_process`, `redis` or `postgres`
 * (then `interlude worker` processes run the jobs; bench/jobs.js starts them). The config text comes
 * from BENCH_JOBS_YAML (bench/jobs.js writes the same one for the workers).
 */
module.exports = async function start() {
  const { createApp } = require(path.join(DIST, 'main.js'));
  const { parseConfig } = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const config = parseConfig(process.env.BENCH_JOBS_YAML, 'bench-jobs.yml', builtinRegistry());
  const app = await createApp(config, { logger: process.env.BENCH_LOG ? ['error', 'warn'] : false });
  return app.getHttpServer();
};
