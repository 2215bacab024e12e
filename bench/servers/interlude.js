'use strict';
const path = require('node:path');
const { ECHO_YAML, SCRIPTED_YAML, WS_YAML, HITL_YAML } = require('../lib/shared');

const HEAD_DIST = path.resolve(__dirname, '..', '..', 'dist');

const YAML = {
  echo: ECHO_YAML,
  'echo-info': ECHO_YAML,
  'echo-identified': ECHO_YAML,
  stream: SCRIPTED_YAML,
  hitl: HITL_YAML,
  ws: WS_YAML,
};

/**
 * The server under test, built from dist/: `echo` (JSON), `stream` / `ws` (scripted, 1,000 chunks) or `hitl`
 * (scripted: a text prompt, then a short stream).
 */
/** `<variant>@base`: the same, built from BENCH_BASE_DIST (another commit's dist/), for before/after rows. */
module.exports = async function start(tagged = 'echo') {
  const [variant, base] = tagged.split('@');
  const DIST = base ? path.resolve(process.env.BENCH_BASE_DIST) : HEAD_DIST;
  const { createApp } = require(path.join(DIST, 'main.js'));
  const { parseConfig } = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const yaml = YAML[variant] ?? ECHO_YAML;
  const config = parseConfig(yaml, `bench-${variant}.yml`, builtinRegistry());
  // Nest exits silently when its logger is off and the app cannot start: BENCH_LOG=1 shows why.
  // `echo-info`: LOG_LEVEL=info as `interlude serve` runs by default, its lines going to /dev/null.
  const log =
    variant === 'echo-info'
      ? { level: 'info', destination: require('pino').pino.destination({ dest: '/dev/null', sync: false }) }
      : undefined;
  const app = await createApp(
    config,
    log ? { log } : { logger: process.env.BENCH_LOG ? ['error', 'warn'] : false },
  );
  return app.getHttpServer();
};
