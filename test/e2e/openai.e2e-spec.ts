import OpenAI from 'openai';
import { afterTrace, dataOf, postJson, postStream } from '../utils/sse';
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
import { client, rawStreamText } from '../utils/openai-client';

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
    // one HTTP request: the SDK did not retry (nor wait its back-off before raising)
    expect(calls.count).toBe(1);
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
