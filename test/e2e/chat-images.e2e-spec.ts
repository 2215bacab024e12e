import { randomUUID } from 'node:crypto';
import { AgentCapabilitiesSchema } from '@ag-ui/core/schemas';
import OpenAI from 'openai';
import { RecordingAgent, types } from '../utils/agui-client';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';
import { isComplete, WsClient } from '../utils/ws-client';

/** A real 1×1 PNG, and the same bytes labelled as other types. */
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PNG = `data:image/png;base64,${PNG_BASE64}`;

const image = (url: string) => ({ type: 'image_url', image_url: { url } });
const userWith = (...parts: unknown[]) => ({
  role: 'user',
  content: [{ type: 'text', text: 'What is this?' }, ...parts],
});

const SENT = [
  { type: 'text', text: 'What is this?' },
  { type: 'image_url', image_url: { url: PNG } },
];

describe('images in a chat reach the model of an LLM agent', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const attachments = { general: { front_end: { attachments: { max_bytes: 2048 } } } };
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }, {}, {}, attachments),
    (model, app) => ((llm = model), (t = app)),
  );

  it('/v1/chat/completions (openai SDK): the model receives the text and the image part', async () => {
    llm.script(reply.text('A red pixel.'));
    const sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x', maxRetries: 0 });
    const completion = await sdk.chat.completions.create({
      model: 'any',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image_url', image_url: { url: PNG } },
          ],
        },
      ],
    });
    expect(completion.choices[0].message.content).toBe('A red pixel.');
    expect(llm.userContent()).toEqual(SENT);
  });

  it('/v1/chat/stream, /chat and /v1/workflow with messages pass the image on too', async () => {
    llm.script(reply.text('one'), reply.text('two'), reply.text('three'));
    const stream = await fetch(`${t.url}/v1/chat/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [userWith(image(PNG))] }),
    });
    expect(stream.status).toBe(200);
    expect(await stream.text()).toContain('one');
    expect((await postJson(`${t.url}/chat`, { messages: [userWith(image(PNG))] })).status).toBe(200);
    const generate = await postJson(`${t.url}/v1/workflow`, { messages: [userWith(image(PNG))] });
    expect(generate.json).toEqual({ value: 'three' });
    for (const n of [0, 1, 2]) expect(llm.userContent(n)).toEqual(SENT);
  });

  it('the LLM_START step shows the image without its bytes', async () => {
    llm.script(reply.text('seen'));
    const res = await fetch(`${t.url}/v1/workflow/full`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [userWith(image(PNG))] }),
    });
    const text = await res.text();
    expect(text).toContain('LLM_START');
    expect(text).toContain('data:image/png;base64,… (');
    expect(text).not.toContain(PNG_BASE64);
  });

  it('a WebSocket user_message (NAT schema) carries the image to the model', async () => {
    llm.script(reply.text('A pixel, over the socket.'));
    const ws = await WsClient.connect(t.url);
    try {
      ws.send({
        type: 'user_message',
        schema_type: 'chat',
        id: randomUUID(),
        conversation_id: 'c-img',
        content: { messages: [userWith(image(PNG))] },
      });
      const seen = await ws.until(isComplete);
      expect(JSON.stringify(seen)).toContain('A pixel, over the socket.');
    } finally {
      ws.close();
    }
    expect(llm.userContent()).toEqual(SENT);
  });

  it('a WebSocket user_message of an image alone starts the run too (generate schema: that message)', async () => {
    llm.script(reply.text('Just a pixel.'));
    const ws = await WsClient.connect(t.url);
    try {
      ws.send({
        type: 'user_message',
        schema_type: 'generate',
        id: randomUUID(),
        content: { messages: [{ role: 'user', content: [image(PNG)] }] },
      });
      expect(JSON.stringify(await ws.until(isComplete))).toContain('Just a pixel.');
    } finally {
      ws.close();
    }
    expect(llm.userContent()).toEqual([{ type: 'image_url', image_url: { url: PNG } }]);
  });

  it('AG-UI declares image input, and an image part (data source) reaches the model', async () => {
    const caps = (await (await fetch(`${t.url}/v1/ag-ui/capabilities`)).json()) as Record<string, unknown>;
    expect(AgentCapabilitiesSchema.safeParse(caps).success).toBe(true);
    expect(caps.multimodal).toEqual({ input: { image: true } });
    llm.script(reply.text('An AG-UI pixel.'));
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`);
    agent.agent.addMessage({
      id: randomUUID(),
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'image', source: { type: 'data', value: PNG_BASE64, mimeType: 'image/png' } },
      ],
    });
    const events = await agent.run();
    expect(types(events).at(-1)).toBe('RUN_FINISHED');
    expect(llm.userContent()).toEqual(SENT);
  });

  it('an AG-UI 0.0.5x binary image part (0.0.58 HttpAgent) reaches the model as an image part', async () => {
    llm.script(reply.text('A legacy pixel.'));
    const { HttpAgent } = await import('ag-ui-client-058');
    const agent = new HttpAgent({ url: `${t.url}/v1/ag-ui` });
    agent.addMessage({
      id: randomUUID(),
      role: 'user',
      content: [
        { type: 'text', text: 'What is this?' },
        { type: 'binary', mimeType: 'image/png', data: PNG_BASE64 },
      ],
    });
    await agent.runAgent();
    expect(llm.userContent()).toEqual(SENT);
  });

  it.each([
    [
      'a binary image part by url',
      { type: 'binary', mimeType: 'image/png', url: 'http://127.0.0.1:9/x.png' },
    ],
    ['a binary image part by id', { type: 'binary', mimeType: 'image/png', id: 'file-1' }],
    ['an image part by file source', { type: 'image', source: { type: 'file', value: 'file-1' } }],
  ])('AG-UI: %s is refused with 422 (0.0.58 HttpAgent), and the model is not called', async (_, part) => {
    const { HttpAgent } = await import('ag-ui-client-058');
    const agent = new HttpAgent({ url: `${t.url}/v1/ag-ui` });
    const content = [{ type: 'text', text: 'What is this?' }, part] as never;
    agent.addMessage({ id: randomUUID(), role: 'user', content });
    // The client logs the failed run before rejecting with it.
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expect(agent.runAgent()).rejects.toThrow(/422.*only inline images are accepted/s);
    } finally {
      quiet.mockRestore();
    }
    expect(llm.requests).toHaveLength(0);
  });

  describe('refused with 422 and where (the model is not called)', () => {
    const refused = async (part: unknown, role = 'user') => {
      const message = role === 'user' ? userWith(part) : { role, content: [part] };
      const messages = role === 'user' ? [message] : [message, { role: 'user', content: 'and?' }];
      const res = await postJson(`${t.url}/v1/chat`, { messages });
      expect(res.status).toBe(422);
      expect(llm.requests).toHaveLength(0);
      return (res.json as { detail: { loc: unknown[]; msg: string }[] }).detail;
    };

    it('a type not accepted (SVG)', async () => {
      const svg = `data:image/svg+xml;base64,${Buffer.from('<svg onload="alert(1)"/>').toString('base64')}`;
      expect(await refused(image(svg))).toEqual([
        expect.objectContaining({
          loc: ['body', 'messages', 0, 'content', 1, 'image_url', 'url'],
          msg: expect.stringContaining('"image/svg+xml" is not accepted'),
        }),
      ]);
    });

    it('bytes that are not what the type says', async () => {
      const fake = `data:image/png;base64,${Buffer.from('<html>not a png</html>').toString('base64')}`;
      const [issue] = await refused(image(fake));
      expect(issue.msg).toBe('the data is not a image/png image');
    });

    it('an image over max_bytes', async () => {
      const big = `data:image/png;base64,${Buffer.alloc(3000).toString('base64')}`;
      const [issue] = await refused(image(big));
      expect(issue.msg).toBe('image is 3000 bytes, over the limit of 2048');
    });

    it('a malformed data: URL', async () => {
      expect((await refused(image('data:image/png,notbase64')))[0].msg).toContain('malformed data: URL');
      expect((await refused(image('data:image/png;base64,@@@@')))[0].msg).toContain('not base64');
    });

    it('a remote URL: the server fetches none, nor hands one to the model', async () => {
      const [issue] = await refused(image('http://169.254.169.254/latest/meta-data'));
      expect(issue.msg).toContain('only inline images are accepted');
    });

    it('an image on an assistant message, and an audio part', async () => {
      expect((await refused(image(PNG), 'assistant'))[0].msg).toBe(
        'images are accepted on user messages only',
      );
      const audio = { type: 'input_audio', input_audio: { data: 'AAAA', format: 'wav' } };
      expect((await refused(audio))[0].msg).toContain('"input_audio" are not accepted');
    });

    it('/v1/chat/completions answers 400 in OpenAI error shape, naming the field', async () => {
      const res = await postJson(`${t.url}/v1/chat/completions`, {
        messages: [userWith(image('https://example.com/cat.png'))],
      });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({
        error: expect.objectContaining({
          message: expect.stringContaining('only inline images are accepted'),
          param: expect.stringContaining('messages'),
        }),
      });
      expect(llm.requests).toHaveLength(0);
    });
  });
});

describe('a workflow that reads no images', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp('workflow:\n  _type: echo\n')));
  afterAll(() => t.close());

  it('refuses a chat with an image (422 with loc), rather than dropping it', async () => {
    const res = await postJson(`${t.url}/v1/chat`, { messages: [userWith(image(PNG))] });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({
      detail: [
        {
          loc: ['body', 'messages', 0, 'content', 1],
          msg: 'this workflow reads no images: send text only',
        },
      ],
    });
  });

  it('the WebSocket answers invalid_user_message_content', async () => {
    const ws = await WsClient.connect(t.url);
    try {
      ws.send({
        type: 'user_message',
        schema_type: 'chat',
        id: 'm1',
        content: { messages: [userWith(image(PNG))] },
      });
      const error = (await ws.until((m) => m.type === 'error_message')).at(-1)!;
      expect(error.content).toMatchObject({
        code: 'invalid_user_message_content',
        message: 'Attachment refused',
        details: 'content.messages.0.content.1: this workflow reads no images: send text only',
      });
    } finally {
      ws.close();
    }
  });

  it('AG-UI declares no image input', async () => {
    const caps = (await (await fetch(`${t.url}/v1/ag-ui/capabilities`)).json()) as Record<string, unknown>;
    expect(caps.multimodal).toEqual({ input: { image: false } });
  });
});
