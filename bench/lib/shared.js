'use strict';

/** What every JSON server under test is asked and must answer, byte for byte. */
const JSON_PATH = '/v1/workflow';
const JSON_REQUEST = JSON.stringify({ message: 'hello world' });
const JSON_RESPONSE = JSON.stringify({ value: 'hello world' });

/** The streaming workload: 1,000 SSE frames of `data: {"value":"chunk "}` (each may carry an `id:`). */
const STREAM_PATH = '/v1/workflow/stream';
const STREAM_REQUEST = JSON.stringify({ input_message: 'x' });
const STREAM_CHUNKS = 1000;
const STREAM_DATA = JSON.stringify({ value: 'chunk ' });

/**
 * Checks a stream body: exactly STREAM_CHUNKS events, each with one `data:` line equal to
 * STREAM_DATA, and otherwise only `id:` lines. Says whether the events are numbered `id: 1, 2, …`
 * so the raw baseline can write the same bytes.
 */
function checkStream(body) {
  const events = body.split('\n\n');
  if (events.pop() !== '') return { ok: false, problem: 'the body does not end with a blank line' };
  // NAT's streams open with the observability trace id: `observability_trace: {...}`.
  const trace =
    events.length > 0 && /^observability_trace: \{"observability_trace_id":"[0-9a-f]{32}"\}$/.test(events[0]);
  if (trace) events.shift();
  let ids = 0;
  for (const [i, event] of events.entries()) {
    const lines = event.split('\n');
    const data = lines.filter((l) => l.startsWith('data: '));
    const other = lines.filter((l) => !l.startsWith('data: ') && !l.startsWith('id: '));
    if (data.length !== 1 || data[0] !== `data: ${STREAM_DATA}` || other.length > 0)
      return { ok: false, problem: `event ${i + 1} is ${JSON.stringify(event)}` };
    if (lines.includes(`id: ${i + 1}`)) ids++;
  }
  if (events.length !== STREAM_CHUNKS)
    return { ok: false, problem: `${events.length} events instead of ${STREAM_CHUNKS}` };
  if (ids !== 0 && ids !== events.length) return { ok: false, problem: 'only some events carry an id' };
  return { ok: true, ids: ids > 0, trace };
}

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

/**
 * The WebSocket part: the scripted workflow, with the per-address cap on open sockets raised past the
 * 10,000 idle connections the benchmark opens from its one address (the default, 1,000, refuses the
 * handshake of the next with 429).
 */
const WS_YAML = SCRIPTED_YAML.replace(
  '    step_adaptor: { mode: off }\n',
  '    step_adaptor: { mode: off }\n    websocket_max_connections_per_address: 20000\n',
);
if (WS_YAML === SCRIPTED_YAML)
  throw new Error('WS_YAML: the scripted config has no front_end to raise the cap in');

/**
 * Human in the loop: a text prompt, then a short stream and the output. The waiting limit is raised
 * past the 10,000 executions the benchmark parks (the default, 10,000, would answer the last with 429).
 */
const HITL_ANSWER = 'Ann';
const HITL_RESULT = JSON.stringify({ value: `Hello ${HITL_ANSWER}` });
const HITL_YAML = [
  'general:',
  '  max_waiting_executions: 20000',
  // every parked execution comes from the benchmark's one address (the default allows 100)
  '  max_waiting_executions_per_address: 20000',
  '  max_anonymous_waiting_executions: 20000',
  'workflow:',
  '  _type: scripted',
  '  steps:',
  "    - prompt: { input_type: text, text: 'Your name?', save_as: name }",
  "    - stream: { text: 'hi {{name}}' }",
  "  output: 'Hello {{name}}'",
  '',
].join('\n');

/** A chunk and the end of a streamed answer as Interlude's WebSocket face sends them (the baseline's frames). */
const wsChunkMessage = JSON.stringify({
  type: 'system_response_message',
  id: '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f',
  thread_id: 'default',
  parent_id: 'bench-message',
  conversation_id: 'bench-conversation',
  content: { text: 'chunk ' },
  status: 'in_progress',
  timestamp: '2026-01-01T00:00:00.000Z',
});
const wsCompleteMessage = wsChunkMessage.replace('"in_progress"', '"complete"');

module.exports = {
  wsChunkMessage,
  wsCompleteMessage,
  JSON_PATH,
  JSON_REQUEST,
  JSON_RESPONSE,
  STREAM_PATH,
  STREAM_REQUEST,
  STREAM_CHUNKS,
  STREAM_DATA,
  checkStream,
  ECHO_YAML,
  SCRIPTED_YAML,
  WS_YAML,
  HITL_ANSWER,
  HITL_RESULT,
  HITL_YAML,
};
