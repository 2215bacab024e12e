import {
  a2aClient,
  aDataPart,
  aFilePart,
  aSend,
  asTask,
  aTextPart,
  aUserMessage,
  datas,
  stateOf,
  texts,
} from '../utils/a2a-client';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { ECHO_OPENAI_YAML, ECHO_YAML, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

/** A real 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** `{a: {a: … {a: 1}}}`, `levels` objects deep. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('A2A: data parts reach the workflow; a workflow of fields takes one as its input', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(ECHO_YAML);
  });
  afterAll(() => t.close());

  it('a message of one data part holding the fields is the workflow input itself', async () => {
    const client = await a2aClient(t.url);
    const task = asTask(await client.sendMessage(aSend(aUserMessage([aDataPart({ message: 'from data' })]))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toBe('from data');
  });

  it('a data part that does not fit the fields is refused (-32602) naming the field', async () => {
    const client = await a2aClient(t.url);
    await expect(client.sendMessage(aSend(aUserMessage([aDataPart({ message: 5 })])))).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringMatching(/data part is not this workflow's input: data\.message/),
    });
  });

  it('beside text, a data part reaches the workflow as JSON text after it', async () => {
    const client = await a2aClient(t.url);
    const parts = [aTextPart('look at'), aDataPart({ message: 'x', n: [1, 2] })];
    const task = asTask(await client.sendMessage(aSend(aUserMessage(parts))));
    expect(texts(task.artifacts[0].parts).join('')).toBe('look at\n{"message":"x","n":[1,2]}');
  });

  it(`data nested deeper than 32 levels is refused (-32602); 32 levels are read`, async () => {
    const client = await a2aClient(t.url);
    const deep = aUserMessage([aTextPart('x'), aDataPart(nested(33))]);
    await expect(client.sendMessage(aSend(deep))).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('Part 1: data nested deeper than 32 levels'),
    });
    const ok = asTask(await client.sendMessage(aSend(aUserMessage([aTextPart('x'), aDataPart(nested(32))]))));
    expect(stateOf(ok)).toBe('TASK_STATE_COMPLETED');
  });

  it('a file part by URL is refused as an unsupported content type (-32005): the server fetches no URL', async () => {
    const client = await a2aClient(t.url);
    const file = aFilePart({ $case: 'url', value: 'http://169.254.169.254/latest' }, 'text/plain', '');
    await expect(
      client.sendMessage(aSend(aUserMessage([aTextPart('read this'), file]))),
    ).rejects.toMatchObject({
      name: 'ContentTypeNotSupportedError',
      message: expect.stringContaining(
        'Part 1 is a file (text/plain): this agent accepts text and data parts, and files as inline bytes (no URL)',
      ),
    });
  });

  it('a file with inline bytes to a workflow that reads no files is refused (-32005)', async () => {
    const client = await a2aClient(t.url);
    const pdf = aFilePart({ $case: 'raw', value: Buffer.from('%PDF-1.7') }, 'application/pdf', 'report.pdf');
    await expect(
      client.sendMessage(aSend(aUserMessage([aTextPart('read this'), pdf]))),
    ).rejects.toMatchObject({
      name: 'ContentTypeNotSupportedError',
      message: expect.stringContaining('This agent reads no images or files'),
    });
  });
});

describe('A2A: an image file part reaches an LLM agent as an image of the chat', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }),
    (model, app) => ((llm = model), (t = app)),
  );

  it('inline bytes of an image type: the model receives the text and the image part', async () => {
    llm.script(reply.text('A pixel.'));
    const client = await a2aClient(t.url);
    const image = aFilePart({ $case: 'raw', value: PNG }, 'image/png', 'pixel.png');
    const task = asTask(await client.sendMessage(aSend(aUserMessage([aTextPart('What is this?'), image]))));
    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toBe('A pixel.');
    expect(llm.requests[0].body.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
      ],
    });
  });

  it('in a context used before: the model receives the earlier exchange, then the text and the image', async () => {
    llm.script(reply.text('Hello.'), reply.text('A pixel again.'));
    const client = await a2aClient(t.url);
    const first = asTask(await client.sendMessage(aSend(aUserMessage('Hi'))));
    expect(stateOf(first)).toBe('TASK_STATE_COMPLETED');
    const image = aFilePart({ $case: 'raw', value: PNG }, 'image/png', 'pixel.png');
    const on = { contextId: first.contextId };
    const task = asTask(await client.sendMessage(aSend(aUserMessage([aTextPart('And this?'), image], on))));
    expect(texts(task.artifacts[0].parts).join('')).toBe('A pixel again.');
    const said = llm.requests[1].body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(said).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG.toString('base64')}` } },
        ],
      },
    ]);
  });

  it('an image type not accepted is -32005; bytes that are not the type are -32602', async () => {
    const client = await a2aClient(t.url);
    const svg = aFilePart({ $case: 'raw', value: Buffer.from('<svg/>') }, 'image/svg+xml', 'x.svg');
    await expect(client.sendMessage(aSend(aUserMessage([aTextPart('x'), svg])))).rejects.toMatchObject({
      name: 'ContentTypeNotSupportedError',
      message: expect.stringContaining('Part 1 (x.svg): image type "image/svg+xml" is not accepted'),
    });
    const fake = aFilePart({ $case: 'raw', value: Buffer.from('<html></html>') }, 'image/png', 'a.png');
    await expect(client.sendMessage(aSend(aUserMessage([aTextPart('x'), fake])))).rejects.toMatchObject({
      name: 'RequestMalformedError',
      message: expect.stringContaining('Part 1 (a.png): the data is not a image/png image'),
    });
    expect(llm.requests).toHaveLength(0);
  });
});

describe('A2A: an image to a workflow that reads none', () => {
  it('is refused (-32005)', async () => {
    const t = await startApp(ECHO_YAML);
    try {
      const client = await a2aClient(t.url);
      const image = aFilePart({ $case: 'raw', value: PNG }, 'image/png', 'pixel.png');
      await expect(client.sendMessage(aSend(aUserMessage([aTextPart('x'), image])))).rejects.toMatchObject({
        name: 'ContentTypeNotSupportedError',
        message: expect.stringContaining('This agent reads no images or files'),
      });
      expect((await client.getAgentCard()).defaultInputModes).toEqual(['text/plain', 'application/json']);
    } finally {
      await t.close();
    }
  });
});

describe('A2A: parts on a chat workflow, and structured output', () => {
  it('a chat workflow reads a lone data part as JSON text', async () => {
    const t = await startApp(ECHO_OPENAI_YAML);
    try {
      const client = await a2aClient(t.url);
      const task = asTask(await client.sendMessage(aSend(aUserMessage([aDataPart({ city: 'Oslo' })]))));
      expect(texts(task.artifacts[0].parts).join('')).toBe('{"city":"Oslo"}');
    } finally {
      await t.close();
    }
  });

  it('an object output comes back as a data part beside its text', async () => {
    const t = await startApp('workflow:\n  _type: per_user_counter\n');
    try {
      const client = await a2aClient(t.url);
      const task = asTask(
        await client.sendMessage(aSend(aUserMessage([aDataPart({ action: 'increment' })]))),
      );
      expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
      expect(datas(task.artifacts[0].parts)).toEqual([expect.objectContaining({ count: 1 })]);
      const refused = client.sendMessage(aSend(aUserMessage([aDataPart({ action: 'explode' })])));
      await expect(refused).rejects.toMatchObject({
        message: expect.stringContaining("data.action: Input should be 'increment' or 'get'"),
      });
    } finally {
      await t.close();
    }
  });
});

describe('A2A: a file part in an answer', () => {
  it('is refused (-32005) and the task keeps waiting for its answer, which a text part then gives', async () => {
    const steps = `- prompt: { input_type: text, text: 'Your name?', save_as: name }`;
    const t = await startApp(scriptedYaml(steps, 'Hello {{name}}'));
    try {
      const client = await a2aClient(t.url);
      const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
      expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
      const file = aFilePart(
        { $case: 'url', value: 'https://example.com/name.txt' },
        'text/plain',
        'name.txt',
      );
      await expect(client.sendMessage(aSend(aUserMessage([file], task)))).rejects.toMatchObject({
        name: 'ContentTypeNotSupportedError',
      });
      const image = aFilePart({ $case: 'raw', value: PNG }, 'image/png', 'me.png');
      await expect(client.sendMessage(aSend(aUserMessage([image], task)))).rejects.toMatchObject({
        name: 'ContentTypeNotSupportedError',
        message: expect.stringContaining('an answer takes text and data parts'),
      });
      expect(stateOf(await client.getTask({ tenant: '', id: task.id }))).toBe('TASK_STATE_INPUT_REQUIRED');
      const done = asTask(await client.sendMessage(aSend(aUserMessage('Ada', task))));
      expect(stateOf(done)).toBe('TASK_STATE_COMPLETED');
      expect(texts(done.artifacts[0].parts).join('')).toBe('Hello Ada');
    } finally {
      await t.close();
    }
  });
});
