import OpenAI from 'openai';
import type { ResponseInputContent } from 'openai/resources/responses/responses';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { startApp, type TestApp } from '../utils/test-app';

/** A real 1×1 PNG, and a small PDF (the server never reads a file's bytes). */
const PNG = `data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==`;
const PDF = `data:application/pdf;base64,${Buffer.from('%PDF-1.7\n%%EOF\n', 'latin1').toString('base64')}`;

const sdkOf = (t: TestApp) => new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x', maxRetries: 0 });
const image = (image_url: string): ResponseInputContent => ({
  type: 'input_image',
  image_url,
  detail: 'auto',
});
const userWith = (...parts: ResponseInputContent[]) => [
  { role: 'user' as const, content: [{ type: 'input_text' as const, text: 'What is this?' }, ...parts] },
];

/** The 400 a request gets, in OpenAI's error shape (as the SDK reports it). */
async function refusal(
  sdk: OpenAI,
  parts: unknown[],
): Promise<{ status: number; message: string; param: unknown }> {
  try {
    await sdk.responses.create({ model: 'any', input: userWith(...(parts as ResponseInputContent[])) });
  } catch (err) {
    if (err instanceof OpenAI.APIError)
      return { status: err.status!, message: err.message, param: err.param };
    throw err;
  }
  throw new Error('the request was not refused');
}

describe('/v1/responses: images and files reach the model of an LLM agent, or are refused; never dropped', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const attachments = { general: { front_end: { attachments: { max_bytes: 2048 } } } };
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }, {}, {}, attachments),
    (model, app) => ((llm = model), (t = app)),
  );

  it('an input_image data: URL and an input_file reach the model as the chat faces’ image and file parts', async () => {
    llm.script(reply.text('A pixel and a report.'));
    const response = await sdkOf(t).responses.create({
      model: 'any',
      input: userWith(image(PNG), { type: 'input_file', file_data: PDF, filename: 'report.pdf' }),
    });
    expect(response.output_text).toBe('A pixel and a report.');
    expect(llm.userContent()).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image_url', image_url: { url: PNG } },
      { type: 'file', file: { file_data: PDF, filename: 'report.pdf' } },
    ]);
  });

  it('a later response in the conversation gets the earlier message’s text, not its image again', async () => {
    llm.script(reply.text('A pixel.'), reply.text('Still a pixel.'));
    const sdk = sdkOf(t);
    const first = await sdk.responses.create({ model: 'any', input: userWith(image(PNG)) });
    await sdk.responses.create({ model: 'any', input: 'And now?', previous_response_id: first.id });
    const chat = llm.requests[1].body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(chat).toEqual([
      { role: 'user', content: 'What is this?' },
      { role: 'assistant', content: 'A pixel.' },
      { role: 'user', content: 'And now?' },
    ]);
  });

  it.each([
    [
      'an http(s) image URL',
      image('http://169.254.169.254/latest/meta-data'),
      'image_url',
      'only inline images',
    ],
    [
      'an image by file_id',
      { type: 'input_image', file_id: 'file-1', detail: 'auto' },
      'file_id',
      'file_id is not accepted',
    ],
    [
      'an image that is no PNG',
      image('data:image/png;base64,PGh0bWw+'),
      'image_url',
      'not a image/png image',
    ],
    [
      'a file by URL',
      { type: 'input_file', file_url: 'http://127.0.0.1/r.pdf' },
      'file_url',
      'file_url is not accepted',
    ],
    ['a file by file_id', { type: 'input_file', file_id: 'file-1' }, 'file_id', 'file_id is not accepted'],
    [
      'file_data that is a URL',
      { type: 'input_file', file_data: 'http://127.0.0.1/r.pdf' },
      'file_data',
      'only inline files',
    ],
    [
      'an audio part',
      { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } },
      '',
      '"input_audio" are not accepted',
    ],
  ])(
    '%s is refused with 400 naming the part, and the model is not called',
    async (_, part, field, message) => {
      const refused = await refusal(sdkOf(t), [part]);
      expect(refused.status).toBe(400);
      expect(refused.message).toContain(message);
      expect(refused.param).toBe(['input.0.content.1', field].filter(Boolean).join('.'));
      expect(llm.requests).toHaveLength(0);
    },
  );
});

describe('/v1/responses: a workflow that reads no images or files', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp('workflow:\n  _type: echo\n')));
  afterAll(() => t.close());

  it('refuses a valid image and a valid file with 400, rather than dropping them', async () => {
    const sdk = sdkOf(t);
    expect(await refusal(sdk, [image(PNG)])).toMatchObject({
      status: 400,
      message: expect.stringContaining('this workflow reads no images: send text only'),
      param: 'input.0.content.1',
    });
    const file = { type: 'input_file', file_data: PDF, filename: 'a.pdf' };
    expect((await refusal(sdk, [file])).message).toContain('this workflow reads no files');
  });
});
