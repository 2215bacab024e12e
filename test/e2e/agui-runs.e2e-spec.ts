import { randomUUID } from 'node:crypto';
import { AgentCapabilitiesSchema } from '@ag-ui/core/schemas';
import { errorCodeOf, postRun, RecordingAgent, textOf, types } from '../utils/agui-client';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const STEPS = `- step: { name: lookup, kind: function, input: { q: '{{input}}' }, payload: { hits: 2 } }
- step: { name: search, kind: tool, input: { q: 'printers' }, payload: 'two printers' }
- stream: { text: 'Hello from the workflow', chunk_words: 1 }
`;

describe('AG-UI: plain runs with the official HttpAgent', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(STEPS.split('\n').slice(0, 3).join('\n'), 'done: {{input}}').replace(
        'workflow:',
        'workflow:\n  stream_output: false',
      ),
    );
    url = `${t.url}/v1/ag-ui`;
  });
  afterAll(() => t.close());

  it('streams RUN_STARTED, steps, a tool call with its result, the text tokens, RUN_FINISHED success', async () => {
    const agent = new RecordingAgent(url).say('printers');
    const events = await agent.run();
    expect(types(events)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'STEP_FINISHED',
      'TOOL_CALL_START',
      'TOOL_CALL_ARGS',
      'TOOL_CALL_END',
      'TOOL_CALL_RESULT',
      'TEXT_MESSAGE_START',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_CONTENT',
      'TEXT_MESSAGE_END',
      'RUN_FINISHED',
    ]);
    expect(events[0]).toMatchObject({ threadId: agent.threadId, protocolVersion: '1.0' });
    expect(events[1]).toMatchObject({ stepName: 'lookup' });
    expect(events[3]).toMatchObject({ toolCallName: 'search' });
    expect(JSON.parse(events[4].delta as string)).toEqual({ q: 'printers' });
    expect(events[6]).toMatchObject({ toolCallId: events[3].toolCallId, content: 'two printers' });
    expect(textOf(events)).toBe('Hello from the workflow');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    // The client built the conversation from the events: the assistant's answer is in its history.
    expect(agent.agent.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'Hello from the workflow',
    });
  });

  it('streams every token of a long answer as its own TEXT_MESSAGE_CONTENT', async () => {
    const long = await startApp(scriptedYaml(`- stream: { text: 'tok ', repeat: 1000, chunk_words: 1 }`));
    try {
      const events = await new RecordingAgent(`${long.url}/v1/ag-ui`).say('go').run();
      expect(events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT')).toHaveLength(1000);
      expect(textOf(events)).toBe('tok '.repeat(1000));
    } finally {
      await long.close();
    }
  });

  it('answers 415 for a body that is not JSON and 400 with the reasons for an invalid input, before any stream', async () => {
    expect((await fetch(url)).status).toBe(405);
    const notJson = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(notJson.status).toBe(415);
    const invalid = await postRun(url, { threadId: 7, messages: [{ id: 'm', role: 'wizard' }] });
    expect(invalid.status).toBe(400);
    const issues = (JSON.parse(invalid.body) as { issues: { path: string }[] }).issues.map((i) => i.path);
    expect(issues).toEqual(expect.arrayContaining(['threadId', 'messages[0].role']));
    const broken = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a',
    });
    expect(broken.status).toBe(400);
  });

  it('takes 0.0.5x inputs (tools and context, no protocolVersion), unknown members and content parts', async () => {
    const run = await postRun(
      url,
      {
        threadId: randomUUID(),
        tools: [],
        context: [],
        somethingNew: { x: 1 },
        messages: [{ id: 'u1', role: 'user', content: [{ type: 'text', text: 'parts' }] }],
      },
      { accept: '*/*' },
    );
    expect(run.status).toBe(200);
    expect(run.contentType).toMatch(/^text\/event-stream/);
    // Traced like every face: the run's trace id, and the execution it started.
    expect(run.headers.get('observability-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    expect(run.headers.get('x-execution-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
  });

  it('ends a failing workflow with RUN_ERROR {message, code}, everything opened closed', async () => {
    const failing = await startApp(
      scriptedYaml(
        `- step: { name: lookup, kind: function }\n- stream: { text: 'partial' }\n- fail: { message: 'the printer caught fire', error_type: PrinterError }`,
      ),
    );
    try {
      const agent = new RecordingAgent(`${failing.url}/v1/ag-ui`).say('go');
      const events = await agent.run();
      expect(types(events)).toEqual([
        'RUN_STARTED',
        'STEP_STARTED',
        'STEP_FINISHED',
        'TEXT_MESSAGE_START',
        'TEXT_MESSAGE_CONTENT',
        'TEXT_MESSAGE_END',
        'RUN_ERROR',
      ]);
      expect(events.at(-1)).toMatchObject({ message: 'the printer caught fire', code: 'PrinterError' });
      const raw = await postRun(`${failing.url}/v1/ag-ui`, { threadId: randomUUID() });
      expect(errorCodeOf(raw)).toBe('PrinterError');
    } finally {
      await failing.close();
    }
  });

  it('declares its capabilities as AG-UI AgentCapabilities', async () => {
    const res = await fetch(`${url}/capabilities`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    expect(AgentCapabilitiesSchema.safeParse(doc).success).toBe(true);
    expect(doc).toMatchObject({
      transport: { streaming: true },
      humanInTheLoop: { supported: true, interrupts: true },
    });
  });

  it('documents both routes in OpenAPI', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown>; requestBody?: unknown }>>;
    };
    const run = doc.paths['/v1/ag-ui'].post;
    expect(Object.keys(run.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '415']));
    expect(JSON.stringify(run.requestBody)).toContain('resume');
    expect(doc.paths['/v1/ag-ui/capabilities'].get.responses['200']).toBeDefined();
  });

  it('is left out when ag_ui_path is null', async () => {
    const off = await startApp(`general:\n  front_end:\n    ag_ui_path: null\nworkflow:\n  _type: echo\n`);
    try {
      expect((await fetch(`${off.url}/v1/ag-ui/capabilities`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
