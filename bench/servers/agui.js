'use strict';
const path = require('node:path');

const DIST = path.resolve(__dirname, '..', '..', 'dist');
const TOKENS = 1000;

/** The AG-UI face's configs: `stream` (1,000 streamed tokens) or `hitl` (a text prompt, then a stream). */
const YAML = {
  stream: [
    'workflow:',
    '  _type: scripted',
    '  steps:',
    `    - stream: { text: 'chunk ', repeat: ${TOKENS}, chunk_words: 1 }`,
    '',
  ].join('\n'),
  hitl: [
    'general:',
    '  max_waiting_executions: 20000',
    '  max_waiting_executions_per_user: 20000',
    '  max_anonymous_waiting_executions: 20000',
    '  max_waiting_executions_per_address: 20000',
    '  front_end: { ag_ui_max_threads_per_user: 20000 }',
    'workflow:',
    '  _type: scripted',
    '  steps:',
    "    - prompt: { input_type: text, text: 'Your name?', save_as: name }",
    "    - stream: { text: 'hi {{name}}' }",
    '',
  ].join('\n'),
};

/** Interlude (from dist/) with the AG-UI face at /v1/ag-ui. */
module.exports = async function start(variant = 'stream') {
  const { createApp } = require(path.join(DIST, 'main.js'));
  const { parseConfig } = require(path.join(DIST, 'config', 'config.loader.js'));
  const { builtinRegistry } = require(path.join(DIST, 'runtime', 'builtin-functions.js'));
  const config = parseConfig(YAML[variant], `bench-agui-${variant}.yml`, builtinRegistry());
  const app = await createApp(config, { logger: process.env.BENCH_LOG ? ['error', 'warn'] : false });
  return app.getHttpServer();
};
module.exports.TOKENS = TOKENS;
