'use strict';
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', '..', 'dist');
const TOKENS = 1000;

/**
 * The Responses face's configs: `stream` (1,000 streamed tokens, for events/s) or `short` (a
 * seven-token answer, for the time to the first token and for whole answers). Both also serve
 * `/v1/chat/completions`, the baseline of the same run.
 */
const YAML = {
  stream: `    - stream: { text: 'chunk ', repeat: ${TOKENS}, chunk_words: 1 }`,
  short: "    - stream: { text: 'Hello there, how can I help you?', chunk_words: 1 }",
};

/** Interlude (from dist/) with the Responses face at /v1/responses. */
module.exports = async function start(variant = 'stream') {
  const { createApp } = require(path.join(DIST, 'main.js'));
  const { parseConfig } = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const yaml = ['workflow:', '  _type: scripted', '  steps:', YAML[variant], ''].join('\n');
  const config = parseConfig(yaml, `bench-responses-${variant}.yml`, builtinRegistry());
  const app = await createApp(config, { logger: process.env.BENCH_LOG ? ['error', 'warn'] : false });
  return app.getHttpServer();
};
module.exports.TOKENS = TOKENS;
