'use strict';

/** What every JSON server under test is asked and must answer, byte for byte. */
const JSON_PATH = '/v1/workflow';
const JSON_REQUEST = JSON.stringify({ message: 'hello world' });
const JSON_RESPONSE = JSON.stringify({ value: 'hello world' });

/** The streaming workload: 1,000 SSE frames of `data: {"value":"chunk "}`. */
const STREAM_PATH = '/v1/workflow/stream';
const STREAM_REQUEST = JSON.stringify({ input_message: 'x' });
const STREAM_CHUNKS = 1000;
const STREAM_FRAME = `data: ${JSON.stringify({ value: 'chunk ' })}\n\n`;

const ECHO_YAML = 'workflow:\n  _type: echo\n';
const SCRIPTED_YAML = [
  'general:',
  '  front_end:',
  '    step_adaptor: { mode: off }',
  'workflow:',
  '  _type: scripted',
  '  steps:',
  `    - stream: { text: 'chunk ', repeat: ${STREAM_CHUNKS} }`,
  '',
].join('\n');

module.exports = {
  JSON_PATH,
  JSON_REQUEST,
  JSON_RESPONSE,
  STREAM_PATH,
  STREAM_REQUEST,
  STREAM_CHUNKS,
  STREAM_FRAME,
  ECHO_YAML,
  SCRIPTED_YAML,
};
