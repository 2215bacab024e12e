import OpenAI from 'openai';
import { afterTrace, dataOf, postJson, postStream, type StreamResult } from '../utils/sse';
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

/** An SDK client for the test server that counts the HTTP requests it makes. */
function client(t: TestApp, options: { maxRetries?: number } = {}) {
  const calls = { count: 0 };
  const sdk = new OpenAI({
    baseURL: `${t.url}/v1`,
    apiKey: 'not-needed',
    ...options,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      calls.count++;
      return fetch(input, init);
    },
  });
  return { sdk, calls };
}

/** Checks the raw OpenAI stream framing and returns the chunks' joined delta text. */
function rawStreamText(res: StreamResult): string {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(res.lines[res.lines.length - 1]).toBe('data: [DONE]');
  expect(res.lines.filter((l) => l === 'data: [DONE]')).toHaveLength(1);
  const chunks = dataOf(res) as Chunk[];
  for (const c of chunks) {
    expect(c).toMatchObject({
      id: chunks[0].id,
      object: 'chat.completion.chunk',
      created: chunks[0].created,
    });
    expect(c.model).toBe(chunks[0].model);
  }
  expect(Number.isInteger(chunks[0].created)).toBe(true);
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  return chunks.map((c) => c.choices[0].delta.content ?? '').join('');
}

describe.each([
  ['echo', ECHO_YAML],
  ['echo (use_openai_api)', ECHO_OPENAI_YAML],
])('/v1/chat/completions with the %s workflow', (_name, yaml) => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(yaml)));
  afterAll(() => t.close());

  it('the openai SDK reads a non-streaming completion', async () => {
    const { sdk, calls } = client(t);
    const completion = await sdk.chat.completions.create({
      model: 'nvidia/llama-3.1-8b-instruct',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'What is the capital of France?' },
        { role: 'assistant', content: 'Paris' },
        { role: 'user', content: '  and  of Italy? ' },
      ],
      temperature: 0.7,
      max_tokens: 100,
    });
    expect(calls.count).toBe(1);
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('nvidia/llama-3.1-8b-instruct');
    expect(Number.isInteger(completion.created)).toBe(true);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0]).toMatchObject({
      index: 0,
      message: { role: 'assistant', content: '  and  of Italy? ' },
      finish_reason: 'stop',
    });
    const usage = completion.usage!;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it('the openai SDK reads a stream', async () => {
    const { sdk } = client(t);
    const input = '  leading and   inner spaces kept ';
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: input }],
      stream: true,
    });
    let text = '';
    const finishes: (string | null)[] = [];
    const ids = new Set<string>();
    for await (const chunk of stream) {
      ids.add(chunk.id);
      text += chunk.choices[0]?.delta?.content ?? '';
      finishes.push(chunk.choices[0]?.finish_reason ?? null);
    }
    expect(text).toBe(input);
    expect(ids.size).toBe(1);
    expect(finishes[finishes.length - 1]).toBe('stop');
    expect(finishes.slice(0, -1).every((f) => f === null)).toBe(true);
  });

  it('raw: stream: true sends chunks, a stop chunk and data: [DONE]', async () => {
    const input = 'one two  three';
    const res = await postStream(`${t.url}/v1/chat/completions`, {
      ...user(input),
      stream: true,
      model: 'x',
    });
    expect(rawStreamText(res)).toBe(input);
    expect((dataOf(res) as Chunk[])[0].model).toBe('x');
    expect(afterTrace(res).every((l) => l.startsWith('data: '))).toBe(true);
  });

  it.each([false, undefined])('raw: stream: %s answers one JSON chat.completion', async (stream) => {
    const res = await postJson(`${t.url}/v1/chat/completions`, { ...user('hi there'), stream });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.json).toMatchObject({
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hi there' }, finish_reason: 'stop' }],
    });
  });

  it("the SDK's stream helper assembles the final completion", async () => {
    const { sdk } = client(t);
    const runner = sdk.chat.completions.stream({
      model: 'm',
      messages: [{ role: 'user', content: 'assemble  me ' }],
    });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].message).toMatchObject({ role: 'assistant', content: 'assemble  me ' });
    expect(final.choices[0].finish_reason).toBe('stop');
    expect(deltas.join('')).toBe('assemble  me ');
  });

  it('accepts unknown extra fields', async () => {
    const { sdk } = client(t);
    const completion = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      // @ts-expect-error an unknown field the server must accept
      some_vendor_extension: { a: 1 },
    });
    expect(completion.choices[0].message.content).toBe('hi');
  });
});

describe('/v1/chat/completions with a scripted workflow', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(
        scriptedYaml(
          `- step: { name: lookup, kind: tool, input: { q: '{{input}}' }, payload: { answer: 42 } }`,
          'Answer to {{input}}: 42',
        ),
      )),
  );
  afterAll(() => t.close());

  it('answers the rendered output, with and without streaming', async () => {
    const { sdk } = client(t);
    const completion = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'life' }],
    });
    expect(completion.choices[0].message.content).toBe('Answer to life: 42');
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'life' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Answer to life: 42');
  });
});

describe.each(FAILURE_POINTS)('/v1/chat/completions when the workflow fails %s', (_name, before) => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(failingYaml(before))));
  afterAll(() => t.close());

  it('raw non-streaming: 422 with an OpenAI workflow_error body', async () => {
    const res = await postJson(`${t.url}/v1/chat/completions`, user('hi'));
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      error: expect.objectContaining({ message: 'tool exploded', type: 'workflow_error' }) as unknown,
    });
  });

  it('the SDK raises UnprocessableEntityError once, without retrying', async () => {
    const { sdk, calls } = client(t);
    const started = Date.now();
    const err = (await sdk.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.UnprocessableEntityError);
    expect(err.status).toBe(422);
    expect(err.message).toContain('tool exploded');
    expect(err.type).toBe('workflow_error');
    expect(calls.count).toBe(1);
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('the SDK raises an APIError while iterating a failing stream', async () => {
    const { sdk, calls } = client(t);
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const consume = async () => {
      for await (const chunk of stream) void chunk;
    };
    const err = (await consume().then(
      () => undefined,
      (e: unknown) => e,
    )) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err.message).toContain('tool exploded');
    expect(err.type).toBe('workflow_error');
    expect(calls.count).toBe(1);
  });

  it('raw stream: a data: {"error": …} frame, then the stop chunk and [DONE]', async () => {
    const res = await postStream(`${t.url}/v1/chat/completions`, { ...user('hi'), stream: true });
    expect(res.status).toBe(200);
    const frames = dataOf(res) as Record<string, unknown>[];
    const errors = frames.filter((f) => 'error' in f);
    expect(errors).toEqual([
      { error: expect.objectContaining({ message: 'tool exploded', type: 'workflow_error' }) as unknown },
    ]);
    const last = frames[frames.length - 1] as unknown as Chunk;
    expect(last.object).toBe('chat.completion.chunk');
    expect(last.choices[0].finish_reason).toBe('stop');
    expect(frames.indexOf(errors[0])).toBeLessThan(frames.length - 1);
    expect(res.lines[res.lines.length - 1]).toBe('data: [DONE]');
    expect(afterTrace(res).every((l) => l.startsWith('data: ') || l.startsWith('intermediate_data: '))).toBe(
      true,
    );
    expect(res.events.some((e) => e.event === 'error')).toBe(false);
  });
});

describe('/v1/chat/completions on a slow workflow', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await startApp(
        scriptedYaml(
          `- sleep: { seconds: 1.2 }
- stream: { text: 'slow but sure' }`,
          undefined,
          'general:\n  front_end:\n    sse_keepalive_seconds: 1\n',
        ),
      )),
  );
  afterAll(() => t.close());

  it('keep-alive comments do not disturb the SDK or the raw framing', async () => {
    const raw = await postStream(`${t.url}/v1/chat/completions`, { ...user('x'), stream: true });
    expect(raw.text).toContain(': keep-alive\n\n');
    expect(rawStreamText(raw)).toBe('slow but sure');
    const { sdk } = client(t);
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('slow but sure');
  });
});

describe('/v1/chat/completions request validation', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  const url = () => `${t.url}/v1/chat/completions`;

  function expectOpenAiError(res: Awaited<ReturnType<typeof postJson>>, param?: string | null) {
    expect(res.status).toBe(400);
    const error = res.json.error as Record<string, unknown>;
    expect(Object.keys(res.json)).toEqual(['error']);
    expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(error.type).toBe('invalid_request_error');
    expect(typeof error.message).toBe('string');
    expect((error.message as string).length).toBeGreaterThan(0);
    if (param !== undefined) expect(error.param).toBe(param);
    return error;
  }

  it.each([true, false])('a bad role is 400 (stream: %s)', async (stream) => {
    const res = await postJson(url(), { messages: [{ role: 'wizard', content: 'hi' }], stream });
    const error = expectOpenAiError(res, 'messages.0.role');
    expect(error.message).toContain('messages.0.role');
  });

  it('an empty message list is 400 too_short', async () => {
    const error = expectOpenAiError(await postJson(url(), { messages: [] }), 'messages');
    expect(error.code).toBe('too_short');
  });

  it('absent messages are 400 missing', async () => {
    const error = expectOpenAiError(await postJson(url(), { model: 'x', stream: true }), 'messages');
    expect(error.code).toBe('missing');
  });

  it('content: null without tool_calls is 400; with tool_calls it is accepted', async () => {
    expectOpenAiError(
      await postJson(url(), { messages: [{ role: 'assistant', content: null }] }),
      'messages.0.content',
    );
    const ok = await postJson(url(), {
      messages: [
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        { role: 'user', content: 'go' },
      ],
    });
    expect(ok.status).toBe(200);
  });

  it('a non-boolean stream is 400', async () => {
    expectOpenAiError(await postJson(url(), { ...user('hi'), stream: 'yes' }), 'stream');
  });

  it.each([
    ['truncated', '{"messages": ['],
    ['garbage', 'not json at all'],
    [
      'too deep',
      `{"messages": [{"role": "user", "content": "hi"}], "x": ${'['.repeat(300)}${']'.repeat(300)}}`,
    ],
  ])('%s JSON is 400 json_invalid with no param', async (_name, body) => {
    const error = expectOpenAiError(await postJson(url(), body), null);
    expect(error.code).toBe('json_invalid');
    expect(error.message).toMatch(/^We could not parse the JSON body of your request \(.+\)$/);
  });

  it('a text/plain body is 400', async () => {
    const error = expectOpenAiError(
      await postJson(url(), JSON.stringify(user('hi')), { 'content-type': 'text/plain' }),
      null,
    );
    expect(error.code).toBe('missing');
  });

  it('the SDK raises BadRequestError with a real message', async () => {
    const { sdk, calls } = client(t);
    const err = (await sdk.chat.completions
      .create({ model: 'm', messages: [{ role: 'wizard', content: 'hi' }] as never })
      .then(
        () => undefined,
        (e: unknown) => e,
      )) as InstanceType<typeof OpenAI.APIError>;
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^400 .*messages\.0\.role/);
    expect(err.type).toBe('invalid_request_error');
    expect(err.param).toBe('messages.0.role');
    expect(calls.count).toBe(1);
  });

  it('the SDK raises BadRequestError for an empty message list, streaming too', async () => {
    const { sdk } = client(t);
    await expect(
      sdk.chat.completions.create({ model: 'm', messages: [], stream: true }),
    ).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });
});

const HOSTILE_BODIES: [string, string][] = [
  ['null', 'null'],
  ['an array', '[]'],
  ['a string', '"str"'],
  ['a number too large for a double', '1e400'],
  ['a number', '42'],
  ['an empty body', ''],
  ['truncated JSON', '{"messages": [{"role": "user", "content": "hi"'],
  ['messages: null', '{"messages": null}'],
  ['messages as an object', '{"messages": {"0": {"role": "user", "content": "x"}}}'],
  ['a message that is not an object', '{"messages": ["hi", 3, null]}'],
  [
    '10000-level nested arrays in an extra field',
    `{"messages": [{"role": "user", "content": "hi"}], "extra": ${'['.repeat(10000)}${']'.repeat(10000)}}`,
  ],
  [
    '10000-level nested objects in an extra field',
    `{"messages": [{"role": "user", "content": "hi"}], "extra": ${'{"a":'.repeat(10000)}1${'}'.repeat(10000)}}`,
  ],
  ['a lone surrogate in content', '{"messages": [{"role": "user", "content": "\\ud800"}]}'],
  ['a lone surrogate in role', '{"messages": [{"role": "\\udfff", "content": "x"}]}'],
  [
    'a lone surrogate in a content part',
    '{"messages": [{"role": "user", "content": [{"type": "text", "text": "a\\ud800b"}]}]}',
  ],
  [
    '__proto__ pollution',
    '{"__proto__": {"polluted": true}, "messages": [{"role": "user", "content": "hi"}]}',
  ],
  [
    '__proto__ in a message',
    '{"messages": [{"role": "user", "content": "hi", "__proto__": {"polluted": true}}]}',
  ],
  [
    'constructor.prototype pollution',
    '{"constructor": {"prototype": {"polluted": true}}, "messages": [{"role": "user", "content": "hi"}]}',
  ],
  [
    'content parts of the wrong shape',
    '{"messages": [{"role": "user", "content": [{"type": 1}, null, "x"]}]}',
  ],
  [
    'a huge number of messages',
    `{"messages": [${Array(5000).fill('{"role": "user", "content": "m"}').join(',')}]}`,
  ],
];

describe('hostile bodies never produce a 5xx', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_OPENAI_YAML)));
  afterAll(() => t.close());

  const routes: [string, number][] = [
    ['/v1/chat', 422],
    ['/v1/chat/stream', 422],
    ['/v1/chat/completions', 400],
  ];

  describe.each(routes)('%s', (path, errorStatus) => {
    it.each(HOSTILE_BODIES)('%s', async (_name, body) => {
      const res = await postJson(`${t.url}${path}`, body);
      expect(res.status).toBeLessThan(500);
      expect([200, errorStatus]).toContain(res.status);
      if (res.status !== 200) {
        expect(res.json).toBeDefined();
        if (errorStatus === 400)
          expect((res.json.error as { type: string }).type).toBe('invalid_request_error');
        else expect(Array.isArray(res.json.detail)).toBe(true);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((Object.prototype as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  it.each(HOSTILE_BODIES)('/v1/chat/completions with stream: true inside %s', async (_name, body) => {
    const withStream = body.startsWith('{"messages"') ? body.replace('{', '{"stream": true, ') : body;
    const res = await postJson(`${t.url}/v1/chat/completions`, withStream);
    expect(res.status).toBeLessThan(500);
    expect(res.text).not.toContain('Internal Server Error');
  });

  it('lone surrogates come back as the same (escaped) string', async () => {
    const res = await postJson(`${t.url}/v1/chat`, '{"messages": [{"role": "user", "content": "\\ud800"}]}');
    expect(res.status).toBe(200);
    expect((res.json.choices as { message: { content: string } }[])[0].message.content).toBe('\ud800');
    const streamed = await postJson(
      `${t.url}/v1/chat/completions`,
      '{"stream": true, "messages": [{"role": "user", "content": "x \\ud800"}]}',
    );
    expect(streamed.status).toBe(200);
    expect(streamed.text).toContain('\\ud800');
  });

  it('__proto__ in the body does not pollute and is not mistaken for the request', async () => {
    const res = await postJson(
      `${t.url}/v1/chat/completions`,
      '{"__proto__": {"polluted": true, "model": "evil"}, "messages": [{"role": "user", "content": "hi"}]}',
    );
    expect(res.status).toBe(200);
    expect((res.json.choices as { message: { content: string } }[])[0].message.content).toBe('hi');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('after all that, normal requests still work on every route', async () => {
    const { sdk } = client(t);
    const completion = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'still alive' }],
    });
    expect(completion.choices[0].message.content).toBe('still alive');
    const stream = await sdk.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'still streaming' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('still streaming');
    const chat = await postJson(`${t.url}/v1/chat`, user('chat ok'));
    expect(chat.status).toBe(200);
    expect(rawStreamText(await postStream(`${t.url}/chat/stream`, user('legacy ok')))).toBe('legacy ok');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
