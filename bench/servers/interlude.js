'use strict';
const path = require('node:path');
const { ECHO_YAML, SCRIPTED_YAML, HITL_YAML } = require('../lib/shared');

const DIST = path.resolve(__dirname, '..', '..', 'dist');

const YAML = { echo: ECHO_YAML, stream: SCRIPTED_YAML, hitl: HITL_YAML, ws: SCRIPTED_YAML };

/**
 * The server under test, built from dist/: `echo` (JSON), `stream` / `ws` (scripted, 1,000 chunks) or `hitl`
 * (scripted: a text prompt, then a short stream).
 */
module.exports = async function start(variant) {
  const { createApp } = require(path.join(DIST, 'main.js'));
  const { parseConfig } = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const yaml = YAML[variant] ?? ECHO_YAML;
  const config = parseConfig(yaml, `bench-${variant}.yml`, builtinRegistry());
  // Nest exits silently when its logger is off and the app cannot start: BENCH_LOG=1 shows why.
  const app = await createApp(config, { logger: process.env.BENCH_LOG ? ['error', 'warn'] : false });
  return app.getHttpServer();
};
