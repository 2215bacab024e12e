import OpenAI from 'openai';
import { linesWith, postJson, postStream, traceLine, type StreamResult } from '../utils/sse';
import { failingYaml, scriptedYaml, startApp, type TestApp } from '../utils/test-app';
import { type Seen, traceitRegistry, TRACEIT, TRACE_ID, TRACEPARENT, HEX32, traceOf } from '../utils/traceit';
import { user } from '../utils/chat';

describe('observability trace ids: from traceparent, workflow-trace-id, or new', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  const run = async (headers: Record<string, string>) => {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' }, headers);
    expect(res.status).toBe(200);
    const seen = res.json as unknown as Seen;
    // the workflow and the client see the same id
    expect(seen.trace.traceId).toBe(traceOf(res));
    return seen.trace;
  };

  it("takes a valid traceparent's trace-id", async () => {
    expect((await run({ traceparent: TRACEPARENT })).traceId).toBe(TRACE_ID);
  });

  it.each([
    ['a UUID', '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f', '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f'],
    [
      'a UUID in capitals (kept, lowercased)',
      '0198C3A1-7E2F-7B6C-9D4E-1A2B3C4D5E6F',
      '0198c3a1-7e2f-7b6c-9d4e-1a2b3c4d5e6f',
    ],
    ['32 hex digits', 'a3ce929d0e0e47364bf92f3577b34da6', 'a3ce929d0e0e47364bf92f3577b34da6'],
  ])('takes a workflow-trace-id that is %s', async (_name, sent, expected) => {
    expect((await run({ 'workflow-trace-id': sent })).traceId).toBe(expected);
  });

  it('prefers traceparent to workflow-trace-id, as NAT does', async () => {
    const trace = await run({
      traceparent: TRACEPARENT,
      'workflow-trace-id': 'a3ce929d0e0e47364bf92f3577b34da6',
    });
    expect(trace.traceId).toBe(TRACE_ID);
  });

  it('falls back to workflow-trace-id when traceparent is invalid', async () => {
    const trace = await run({
      traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
      'workflow-trace-id': 'a3ce929d0e0e47364bf92f3577b34da6',
    });
    expect(trace.traceId).toBe('a3ce929d0e0e47364bf92f3577b34da6');
  });

  it('makes a new one (32 hex, different each time) when there is none', async () => {
    const a = await run({});
    const b = await run({});
    expect(a.traceId).toMatch(HEX32);
    expect(b.traceId).toMatch(HEX32);
    expect(a.traceId).not.toBe(b.traceId);
  });

  it.each([
    [
      'traceparent with an all-zero trace-id',
      { traceparent: '00-00000000000000000000000000000000-00f067aa0ba902b7-01' },
    ],
    ['traceparent with an all-zero parent-id', { traceparent: `00-${TRACE_ID}-0000000000000000-01` }],
    ['traceparent in capitals', { traceparent: TRACEPARENT.toUpperCase() }],
    ['traceparent of another version', { traceparent: `01-${TRACE_ID}-00f067aa0ba902b7-01` }],
    ['traceparent with a short trace-id', { traceparent: `00-${TRACE_ID.slice(1)}-00f067aa0ba902b7-01` }],
    ['workflow-trace-id that is no id', { 'workflow-trace-id': 'not-a-trace' }],
    ['workflow-trace-id of zeros', { 'workflow-trace-id': '00000000-0000-0000-0000-000000000000' }],
  ])('makes a new one for %s', async (_name, headers) => {
    const trace = await run(headers);
    expect(trace.traceId).toMatch(HEX32);
    expect(trace.traceId).not.toBe(TRACE_ID);
  });

  it("hands NAT's cross-workflow headers to the workflow as ctx.trace", async () => {
    const trace = await run({
      traceparent: TRACEPARENT,
      'conversation-id': 'conv-1',
      'user-message-id': 'msg-7',
      'workflow-run-id': 'run-3',
      'workflow-parent-id': 'parent-9',
      'workflow-parent-name': 'planner',
    });
    expect(trace).toEqual({
      traceId: TRACE_ID,
      conversationId: 'conv-1',
      userMessageId: 'msg-7',
      workflowRunId: 'run-3',
      workflowParentId: 'parent-9',
      workflowParentName: 'planner',
    });
    expect(await run({})).toEqual({ traceId: expect.stringMatching(HEX32) as unknown });
  });
});

describe('Observability-Trace-Id on non-streaming responses', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  it.each([
    ['/v1/workflow', { input_message: 'hi' }],
    ['/generate', { input_message: 'hi' }],
    ['/v1/chat', user('hi')],
    ['/chat', user('hi')],
    ['/v1/chat/completions', { ...user('hi'), model: 'm' }],
  ])('POST %s answers with the header', async (path, body) => {
    const res = await postJson(`${t.url}${path}`, body, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    expect(traceOf(res)).toBe(TRACE_ID);
    const fresh = await postJson(`${t.url}${path}`, body);
    expect(traceOf(fresh)).toMatch(HEX32);
  });

  it('a request refused before the workflow starts (invalid body) has no trace id', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { nope: 1 }, { traceparent: TRACEPARENT });
    expect(res.status).toBe(422);
    expect(traceOf(res)).toBeNull();
  });

  it('the OpenAI SDK reads the id from the raw response', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const { response } = await client.chat.completions
      .create(
        { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
        { headers: { traceparent: TRACEPARENT } },
      )
      .withResponse();
    expect(response.headers.get('observability-trace-id')).toBe(TRACE_ID);
  });
});

describe('Observability-Trace-Id on 202 and on errors after the start', () => {
  it('a paused execution (202) carries it', async () => {
    const t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Name?', save_as: n }`, '{{n}}'),
    );
    try {
      const res = await postJson(
        `${t.url}/v1/workflow`,
        { input_message: 'x' },
        { traceparent: TRACEPARENT },
      );
      expect(res.status).toBe(202);
      expect(traceOf(res)).toBe(TRACE_ID);
      await fetch(`${t.url}/executions/${res.json.execution_id as string}`, { method: 'DELETE' });
    } finally {
      await t.close();
    }
  });

  it.each([
    ['/v1/workflow', { input_message: 'x' }],
    ['/generate', { input_message: 'x' }],
    ['/v1/chat', user('x')],
    ['/v1/chat/completions', user('x')],
  ])('a workflow failure (422) on %s carries it', async (path, body) => {
    const t = await startApp(failingYaml(''));
    try {
      const res = await postJson(`${t.url}${path}`, body, { 'workflow-trace-id': TRACE_ID });
      expect(res.status).toBe(422);
      expect(traceOf(res)).toBe(TRACE_ID);
    } finally {
      await t.close();
    }
  });
});

describe('streams: one observability_trace line, first', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(TRACEIT, traceitRegistry())));
  afterAll(() => t.close());

  const expectTraceFirst = (res: StreamResult, traceId: string) => {
    expect(res.status).toBe(200);
    expect(res.lines[0]).toBe(traceLine(traceId));
    expect(linesWith(res, 'observability_trace')).toEqual([{ observability_trace_id: traceId }]);
    expect(traceOf(res)).toBe(traceId);
  };

  it.each([
    ['/v1/workflow/stream', { input_message: 'hi' }],
    ['/v1/workflow/full', { input_message: 'hi' }],
    ['/generate/stream', { input_message: 'hi' }],
    ['/generate/full', { input_message: 'hi' }],
    ['/v1/chat/stream', user('hi')],
    ['/chat/stream', user('hi')],
    ['/v1/chat/completions', { ...user('hi'), stream: true }],
  ])('POST %s', async (path, body) => {
    expectTraceFirst(await postStream(`${t.url}${path}`, body, { traceparent: TRACEPARENT }), TRACE_ID);
    const fresh = await postStream(`${t.url}${path}`, body);
    expectTraceFirst(fresh, traceOf(fresh)!);
    expect(traceOf(fresh)).toMatch(HEX32);
  });

  it('comes before the first intermediate step, and without an id on interactive streams', async () => {
    const res = await postStream(`${t.url}/v1/workflow/full`, { input_message: 'hi' });
    expect(res.lines[0]).toMatch(/^observability_trace: /);
    expect(res.lines[1]).toMatch(/^id: 1$/);
    expect(res.lines[2]).toMatch(/^intermediate_data: /);
  });

  it('the OpenAI SDK still reads the stream', async () => {
    const client = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'unused', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: 'm',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(JSON.parse(text)).toMatchObject({ trace: { traceId: expect.stringMatching(HEX32) as unknown } });
  });
});
