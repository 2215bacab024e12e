import { afterTrace, dataOf, linesWith, postJson, postStream, type StreamResult } from '../utils/sse';
import {
  ECHO_OPENAI_YAML,
  ECHO_YAML,
  scriptedYaml,
  startApp,
  type TestApp,
  FAILURE_POINTS,
  failingYaml,
} from '../utils/test-app';
import { user, type Chunk } from '../utils/chat';

/** Checks the shape of a chat stream's chunks and returns the concatenated delta text. */
function streamedText(res: StreamResult): string {
  const chunks = dataOf(res) as Chunk[];
  expect(chunks.length).toBeGreaterThan(1);
  for (const c of chunks) {
    expect(c.object).toBe('chat.completion.chunk');
    expect(c.id).toBe(chunks[0].id);
    expect(c.created).toBe(chunks[0].created);
    expect(c.model).toBe(chunks[0].model);
    expect(c.choices).toHaveLength(1);
    expect(c.choices[0].index).toBe(0);
  }
  expect(Number.isInteger(chunks[0].created)).toBe(true);
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  const last = chunks[chunks.length - 1];
  expect(last.choices[0].finish_reason).toBe('stop');
  expect(last.choices[0].delta.content ?? '').toBe('');
  for (const c of chunks.slice(0, -1)) expect(c.choices[0].finish_reason).toBeNull();
  return chunks.map((c) => c.choices[0].delta.content ?? '').join('');
}

function expectCompletion(json: Record<string, unknown>, content: string) {
  expect(json).toMatchObject({
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
  });
  expect(typeof json.id).toBe('string');
  expect(typeof json.model).toBe('string');
  expect(Number.isInteger(json.created)).toBe(true);
  const nowSeconds = Date.now() / 1000;
  expect(json.created as number).toBeGreaterThan(nowSeconds - 60);
  expect(json.created as number).toBeLessThanOrEqual(nowSeconds + 1);
  const usage = json.usage as Record<string, number>;
  expect(Number.isInteger(usage.prompt_tokens)).toBe(true);
  expect(Number.isInteger(usage.completion_tokens)).toBe(true);
  expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
}

const CONVERSATION = {
  messages: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: 'first question' },
    { role: 'assistant', content: 'first answer' },
    { role: 'user', content: [{ type: 'text', text: ' the  last ' }] },
  ],
};

describe.each([
  ['echo', ECHO_YAML],
  ['echo (use_openai_api)', ECHO_OPENAI_YAML],
])('chat routes with the %s workflow', (_name, yaml) => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(yaml)));
  afterAll(() => t.close());

  it.each(['/v1/chat', '/chat'])(
    'POST %s answers a chat.completion with the last user message',
    async (path) => {
      const res = await postJson(`${t.url}${path}`, CONVERSATION);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expectCompletion(res.json, ' the  last ');
    },
  );

  it.each(['/v1/chat', '/chat'])('POST %s accepts every OpenAI field and unknown extras', async (path) => {
    const res = await postJson(`${t.url}${path}`, {
      ...user('hello  world '),
      model: 'my-model',
      frequency_penalty: 0.5,
      logit_bias: { '42': 1 },
      logprobs: false,
      top_logprobs: 3,
      max_tokens: 100,
      n: 1,
      presence_penalty: -1,
      response_format: { type: 'text' },
      seed: 7,
      service_tier: 'auto',
      stop: ['\n'],
      stream: false,
      stream_options: { include_usage: true },
      temperature: 0.7,
      top_p: 0.9,
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
      tool_choice: 'auto',
      parallel_tool_calls: true,
      user: 'someone',
      some_unknown_field: { nested: [1, 2, 3] },
      another_extra: 'x',
    });
    expect(res.status).toBe(200);
    expectCompletion(res.json, 'hello  world ');
    expect(res.json.model).toBe('my-model');
  });

  it.each([
    ['/v1/chat/stream', false],
    ['/chat/stream', true],
  ])('POST %s streams chunks whose deltas join to the answer', async (path, done) => {
    const input = '  leading and   inner spaces kept ';
    const res = await postStream(`${t.url}${path}`, { ...user(input), model: 'm1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(streamedText(res)).toBe(input);
    expect((dataOf(res) as Chunk[])[0].model).toBe('m1');
    // interactive (versioned) streams number every frame so a dropped client can resume
    expect(afterTrace(res).every((l) => (done ? /^data: / : /^(id: \d+|data: .*)$/).test(l))).toBe(true);
    if (done) {
      expect(res.lines[res.lines.length - 1]).toBe('data: [DONE]');
      expect(res.lines.filter((l) => l === 'data: [DONE]')).toHaveLength(1);
    } else {
      expect(res.text).not.toContain('[DONE]');
    }
  });

  it('the stream and the non-streaming answer carry the same text', async () => {
    const [full, streamed] = await Promise.all([
      postJson(`${t.url}/v1/chat`, CONVERSATION),
      postStream(`${t.url}/v1/chat/stream`, CONVERSATION),
    ]);
    const content = (full.json.choices as { message: { content: string } }[])[0].message.content;
    expect(streamedText(streamed)).toBe(content);
  });

  it('each stream has its own id', async () => {
    const [a, b] = await Promise.all([
      postStream(`${t.url}/chat/stream`, user('a')),
      postStream(`${t.url}/chat/stream`, user('b')),
    ]);
    expect((dataOf(a) as Chunk[])[0].id).not.toBe((dataOf(b) as Chunk[])[0].id);
  });
});

describe('chat routes with a scripted workflow', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(
        scriptedYaml(
          `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { answer: 42 } }
- step: { name: note, kind: custom, payload: hidden by default }`,
          'Answer to {{input}}: 42',
        ),
      )),
  );
  afterAll(() => t.close());

  it.each(['/v1/chat', '/chat'])('POST %s answers the rendered output', async (path) => {
    const res = await postJson(`${t.url}${path}`, CONVERSATION);
    expect(res.status).toBe(200);
    expectCompletion(res.json, 'Answer to  the  last : 42');
  });

  it.each(['/v1/chat/stream', '/chat/stream'])(
    'POST %s sends step-adapted intermediate_data before the chunks',
    async (path) => {
      const res = await postStream(`${t.url}${path}`, user('hi'));
      expect(res.status).toBe(200);
      const steps = linesWith(res, 'intermediate_data') as Record<string, string>[];
      expect(steps).toHaveLength(2);
      expect(steps[0]).toMatchObject({ type: 'markdown', name: 'Tool: lookup', parent_id: 'root' });
      expect(steps[0].payload).toBe('**Input:**\n```json\n{"q":"hi"}\n```');
      expect(steps[1].id).toBe(steps[0].id);
      expect(steps[1].payload).toBe(
        '**Input:**\n```json\n{"q":"hi"}\n```\n\n**Output:**\n```json\n{"answer":42}\n```',
      );
      expect(streamedText(res)).toBe('Answer to hi: 42');
      expect(res.lines.findIndex((l) => l.startsWith('data:'))).toBeGreaterThan(
        res.lines.findLastIndex((l) => l.startsWith('intermediate_data:')),
      );
      // a standard SSE parser skips the non-standard lines and still reads every chunk
      expect(res.events.every((e) => e.event === undefined)).toBe(true);
    },
  );
});

describe.each(FAILURE_POINTS)('chat routes when the workflow fails %s', (_name, before) => {
  let t: TestApp;
  const failure = { code: 'workflow_error', message: 'tool exploded', details: 'ValueError' };
  beforeAll(async () => (t = await startApp(failingYaml(before))));
  afterAll(() => t.close());

  it.each(['/v1/chat', '/chat'])('POST %s answers 422 with the workflow error', async (path) => {
    const res = await postJson(`${t.url}${path}`, user('hi'));
    expect(res.status).toBe(422);
    expect(res.json).toEqual(failure);
  });

  it('legacy /chat/stream ends with the bare error JSON on its own line and no [DONE]', async () => {
    const res = await postStream(`${t.url}/chat/stream`, user('hi'));
    expect(res.status).toBe(200);
    expect(res.lines[res.lines.length - 1]).toBe(JSON.stringify(failure));
    expect(
      afterTrace(res).filter((l) => !l.startsWith('data: ') && !l.startsWith('intermediate_data: ')),
    ).toEqual([JSON.stringify(failure)]);
    expect(res.text).not.toContain('[DONE]');
    expect(res.text).not.toContain('"finish_reason":"stop"');
  });

  it('versioned /v1/chat/stream ends with an event: error frame', async () => {
    const res = await postStream(`${t.url}/v1/chat/stream`, user('hi'));
    expect(res.status).toBe(200);
    const errors = res.events.filter((e) => e.event === 'error');
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0].data)).toEqual(failure);
    expect(res.text).toMatch(/event: error\ndata: \{.*\}\n\n$/);
    expect(res.text).not.toContain('[DONE]');
  });
});

describe('chat request validation', () => {
  // The 422s for bad chat bodies: src/openai/chat.controller.spec.ts (slim app).
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('content: null is allowed on an assistant message with tool_calls', async () => {
    const res = await postJson(`${t.url}/v1/chat`, {
      messages: [
        { role: 'user', content: 'what time is it?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'now', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '12:00' },
        { role: 'user', content: 'thanks' },
      ],
    });
    expect(res.status).toBe(200);
    expectCompletion(res.json, 'thanks');
  });
});
