import OpenAI from 'openai';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { FakeLlm, reply, tokens } from '../utils/fake-llm';
import { agentYaml, CALCULATOR, appWithFakeLlm } from '../utils/fake-llm-config';
import { postJson, postStream } from '../utils/sse';
import { registryWith } from '../utils/test-function';
import { ECHO_YAML, failingYaml, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

function sdkFor(t: TestApp): OpenAI {
  return new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
}

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The event names of a text answer's stream, in OpenAI's order, with `n` deltas. */
function textStream(n: number, end = 'response.completed'): string[] {
  return [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
    ...Array<string>(n).fill('response.output_text.delta'),
    'response.output_text.done',
    'response.content_part.done',
    'response.output_item.done',
    end,
  ];
}

describe('/v1/responses with the echo workflow', () => {
  let t: TestApp;
  let sdk: OpenAI;
  beforeAll(async () => {
    t = await startApp(ECHO_YAML);
    sdk = sdkFor(t);
  });
  afterAll(() => t.close());

  it('the openai SDK creates a response: resp_ id, the model echoed, a message with output_text, usage', async () => {
    const response = await sdk.responses.create({
      model: 'gpt-test',
      input: 'hello there',
      instructions: 'be brief',
      metadata: { ticket: '42' },
      user: 'u-1',
    });
    expect(response.id).toMatch(/^resp_[0-9a-f]{32}$/);
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'gpt-test',
      error: null,
      instructions: 'be brief',
      metadata: { ticket: '42' },
      user: 'u-1',
      previous_response_id: null,
    });
    expect(Number.isInteger(response.created_at)).toBe(true);
    expect(response.output).toHaveLength(1);
    expect(response.output[0]).toMatchObject({
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'hello there', annotations: [] }],
    });
    expect(response.output[0].id).toMatch(/^msg_/);
    expect(response.output_text).toBe('hello there');
    const usage = response.usage!;
    expect(usage.output_tokens).toBe(2);
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens);
  });

  it('input items: a message with input_text parts; members it does not know are ignored', async () => {
    const res = await postJson(`${t.url}/v1/responses`, {
      model: 'm',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'from parts' }] }],
      reasoning: { effort: 'low' },
      something_new: [1, 2, 3],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-execution-id')).toBeTruthy();
    expect(res.json).toMatchObject({ status: 'completed', output: [{ content: [{ text: 'from parts' }] }] });
  });

  it('a wrong type is 400 in OpenAI error shape, which the SDK raises as BadRequestError', async () => {
    const raw = await postJson(`${t.url}/v1/responses`, { input: 'x', stream: 'yes' });
    expect(raw.status).toBe(400);
    expect(raw.json).toEqual({
      error: {
        message: expect.stringContaining('stream') as string,
        type: 'invalid_request_error',
        param: 'stream',
        code: 'invalid_type',
      },
    });
    const created = sdk.responses.create({ model: 'm', input: 42 as unknown as string, stream: true });
    await expect(created).rejects.toMatchObject({ status: 400, param: 'input' });
    await expect(created).rejects.toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('stream: true: OpenAI events with increasing sequence numbers, the answer word by word, one response.completed', async () => {
    const events = await collect(
      await sdk.responses.create({ model: 'm', input: 'one two three', stream: true }),
    );
    expect(events.map((e) => e.type)).toEqual(textStream(3));
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_e, i) => i));
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas.join('')).toBe('one two three');
    const created = events[0] as OpenAI.Responses.ResponseCreatedEvent;
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(created.response).toMatchObject({ status: 'in_progress', output: [], model: 'm' });
    expect(done.response.id).toBe(created.response.id);
    expect(done.response.output_text ?? done.response.output[0]).toBeTruthy();
    expect(done.response).toMatchObject({
      status: 'completed',
      output: [{ type: 'message', content: [{ type: 'output_text', text: 'one two three' }] }],
    });
    const itemIds = new Set(events.flatMap((e) => ('item_id' in e ? [e.item_id] : [])));
    expect([...itemIds]).toEqual([done.response.output[0].id]);
  });

  it('the raw stream: `event:` names each frame as its data says, no [DONE]', async () => {
    const res = await postStream(`${t.url}/v1/responses`, { input: 'raw check', stream: true });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.text).not.toContain('[DONE]');
    const data = res.events.map((e) => JSON.parse(e.data) as { type: string; sequence_number: number });
    expect(res.events.map((e) => e.event)).toEqual(data.map((d) => d.type));
    expect(data.map((d) => d.type)).toEqual(textStream(2));
    expect(data.map((d) => d.sequence_number)).toEqual([...data.keys()]);
  });
});

describe('/v1/responses with a failing workflow', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(failingYaml(`- stream: { text: 'partial answer' }`))));
  afterAll(() => t.close());

  it('is status failed with error {code, message}, not an HTTP error', async () => {
    const response = await sdkFor(t).responses.create({ model: 'm', input: 'x' });
    expect(response.status).toBe('failed');
    expect(response.error).toEqual({ code: 'server_error', message: 'tool exploded' });
    expect(response.output_text).toBe('partial answer');
  });

  it('streamed: the text so far, then response.failed', async () => {
    const events = await collect(await sdkFor(t).responses.create({ model: 'm', input: 'x', stream: true }));
    expect(events.map((e) => e.type)).toEqual(textStream(2, 'response.failed'));
    const failed = events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
    expect(failed.response).toMatchObject({ status: 'failed', error: { message: 'tool exploded' } });
  });
});

describe('/v1/responses with a workflow that streams faster than it is read', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(scriptedYaml("- stream: { text: 'chunk ', repeat: 300, chunk_words: 1 }"));
  });
  afterAll(() => t.close());

  it('every chunk is its own output_text.delta, in order (none merged however fast they come)', async () => {
    const events = await collect(await sdkFor(t).responses.create({ model: 'm', input: 'x', stream: true }));
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas).toEqual(Array<string>(300).fill('chunk '));
    expect(events.map((e) => e.sequence_number)).toEqual([...events.keys()]);
  });
});

describe("/v1/responses: the client's function tools reach the workflow", () => {
  let t: TestApp;
  beforeAll(async () => {
    const registry = registryWith('extras', (_input, ctx) =>
      Promise.resolve(JSON.stringify(ctx.request.extras)),
    );
    t = await startApp('workflow:\n  _type: extras\n', registry);
  });
  afterAll(() => t.close());

  const weather = {
    type: 'function' as const,
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: true,
  };

  it("as ctx.request.extras.responses (function tools and tool_choice, as AG-UI hands its tools) and client_tools (for an agent's model); the response echoes them", async () => {
    const response = await sdkFor(t).responses.create({
      model: 'm',
      input: 'weather in Oslo?',
      tools: [weather, { type: 'web_search_preview' }],
      tool_choice: 'required',
    });
    const { name, description, parameters } = weather;
    expect(JSON.parse(response.output_text)).toEqual({
      responses: { tools: [weather], tool_choice: 'required' },
      client_tools: [{ name, description, parameters }],
    });
    expect(response.tools).toEqual([weather, { type: 'web_search_preview' }]);
    const none = await sdkFor(t).responses.create({ model: 'm', input: 'hi' });
    expect(JSON.parse(none.output_text)).toEqual({
      responses: { tools: [], tool_choice: 'auto' },
      client_tools: [],
    });
  });

  it("a function tool without a valid name, or a tool that is no object, is 400 in OpenAI's shape", async () => {
    const bad = sdkFor(t).responses.create({
      model: 'm',
      input: 'x',
      tools: [{ ...weather, name: 'get weather; rm -rf' }],
    });
    await expect(bad).rejects.toBeInstanceOf(OpenAI.BadRequestError);
    await expect(bad).rejects.toMatchObject({ param: 'tools.0.name' });
    const raw = await postJson(`${t.url}/v1/responses`, { input: 'x', tools: ['get_weather'] });
    expect(raw.status).toBe(400);
    expect(raw.json).toMatchObject({ error: { type: 'invalid_request_error', param: 'tools.0' } });
  });
});

describe('/v1/responses with an LLM agent', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, { _type: 'tool_calling_agent', tool_names: ['calculator'] }, CALCULATOR),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it("streams the model's tokens one by one, leaves the tool step out of the text, and reports the model's usage", async () => {
    const answer = 'The answer is 14.';
    llm.script(
      reply.tools([{ name: 'calculator', arguments: { expression: '7 * 2' } }], '', {
        prompt_tokens: 30,
        completion_tokens: 8,
        total_tokens: 38,
      }),
      reply.text(answer, { prompt_tokens: 45, completion_tokens: 4, total_tokens: 49 }),
    );
    const events = await collect(
      await sdkFor(t).responses.create({
        model: 'agent',
        input: '7 * 2?',
        instructions: 'Be exact.',
        stream: true,
      }),
    );
    const deltas = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : []));
    expect(deltas).toEqual(tokens(answer));
    expect(events.map((e) => e.type)).toEqual(textStream(tokens(answer).length));
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.usage).toMatchObject({ input_tokens: 75, output_tokens: 12, total_tokens: 87 });
    expect(llm.requests[0].body.messages.slice(0, 2)).toEqual([
      expect.objectContaining({ role: 'system', content: expect.stringContaining('Be exact.') as string }),
      expect.objectContaining({ role: 'user', content: '7 * 2?' }),
    ]);
  });
});

describe('where /v1/responses is served', () => {
  it('is in the OpenAPI document, and a configured path moves it', async () => {
    const t = await startApp(`general:\n  front_end:\n    responses_path: /api/responses\n${ECHO_YAML}`);
    try {
      const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.includes('responses'))).toEqual([
        '/api/responses',
        '/api/responses/{id}',
        '/api/responses/{id}/input_items',
        '/api/responses/{id}/cancel',
      ]);
      const moved = new OpenAI({ baseURL: `${t.url}/api`, apiKey: 'x', maxRetries: 0 });
      expect((await moved.responses.create({ model: 'm', input: 'moved' })).output_text).toBe('moved');
      expect((await postJson(`${t.url}/v1/responses`, { input: 'x' })).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it('is gone when responses_path is null', async () => {
    const t = await startApp(`general:\n  front_end:\n    responses_path: null\n${ECHO_YAML}`);
    try {
      expect((await postJson(`${t.url}/v1/responses`, { input: 'x' })).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
