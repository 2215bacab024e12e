import { readFileSync } from 'node:fs';
import OpenAI from 'openai';
import { createApp } from '../../src/main';
import type { Chunk } from '../utils/chat';
import { config as configFile } from '../utils/cli';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { dataOf, postJson, postStream } from '../utils/sse';
import { configFrom, startApp, type TestApp } from '../utils/test-app';
import { connectClosingAfterEach, userMessage, type WsMessage } from '../utils/ws-client';

const INPUT = 'a city break';
const ANSWER = 'Plan for "a city break": Lisbon for three days, then Porto.';
const chat = { messages: [{ role: 'user', content: INPUT }] };

/** `npm start`'s workflow, config/default.yml, as the server loads it (no database file shared with other tests). */
async function startDemo(): Promise<TestApp> {
  const text = readFileSync(configFile('default.yml'), 'utf8');
  const config = configFrom(text, { INTERLUDE_DB_URL: 'sqlite::memory:' });
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

/** The text a client that concatenates a chat stream reads (the NAT UI, OpenAI SDK users). */
function chunkText(chunks: unknown[]): string {
  return (chunks as Chunk[]).map((c) => c.choices[0]?.delta.content ?? '').join('');
}

/** What the NAT UI shows for a WebSocket run: every system_response_message's text, appended. */
function wsText(messages: WsMessage[]): string {
  return messages
    .filter((m) => m.type === 'system_response_message')
    .map((m) => (m.content as { text?: string }).text ?? '')
    .join('');
}

describe('the demo reads the same answer streamed or not, on every face', () => {
  let t: TestApp;
  let sdk: OpenAI;
  const connect = connectClosingAfterEach();
  beforeAll(async () => {
    t = await startDemo();
    sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'not-needed', maxRetries: 0 });
  });
  afterAll(() => t.close());

  it.each(['/v1/workflow', '/generate'])('%s, and the same path + /stream', async (path) => {
    const [plain, streamed] = await Promise.all([
      postJson(`${t.url}${path}`, { input_message: INPUT }),
      postStream(`${t.url}${path}/stream`, { input_message: INPUT }),
    ]);
    expect(plain.json).toEqual({ value: ANSWER });
    expect((dataOf(streamed) as { value: string }[]).map((d) => d.value).join('')).toBe(ANSWER);
  });

  it.each(['/v1/chat', '/chat'])('%s, and the same path + /stream (the NAT UI over HTTP)', async (path) => {
    const [plain, streamed] = await Promise.all([
      postJson(`${t.url}${path}`, chat),
      postStream(`${t.url}${path}/stream`, { ...chat, stream: true }),
    ]);
    const message = (plain.json as { choices: { message: { content: string } }[] }).choices[0].message;
    expect(message.content).toBe(ANSWER);
    expect(chunkText(dataOf(streamed))).toBe(ANSWER);
  });

  it('/v1/chat/completions, with and without stream: true (the openai SDK)', async () => {
    const plain = await sdk.chat.completions.create({ model: 'demo', messages: chat.messages as never });
    expect(plain.choices[0].message.content).toBe(ANSWER);
    const stream = await sdk.chat.completions.create({
      model: 'demo',
      messages: chat.messages as never,
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(ANSWER);
  });

  it('the WebSocket, chat_stream and chat schemas (the NAT UI over its socket)', async () => {
    const ws = await connect(t.url, { session: 'demo' });
    ws.send(userMessage(INPUT, { schema_type: 'chat_stream', conversation_id: 'streamed' }));
    expect(wsText(await ws.run(10_000))).toBe(ANSWER);
    ws.send(userMessage(INPUT, { schema_type: 'chat', conversation_id: 'plain' }));
    expect(wsText(await ws.run(10_000))).toBe(ANSWER);
  });
});

describe('the model a chat answer names', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startDemo()));
  afterAll(() => t.close());

  it.each(['/v1/chat', '/chat', '/v1/chat/completions'])(
    '%s: the workflow when the request names no model, the request’s model when it does',
    async (path) => {
      const unnamed = await postJson(`${t.url}${path}`, chat);
      expect(unnamed.json.model).toBe('scripted');
      const named = await postJson(`${t.url}${path}`, { ...chat, model: 'my-model' });
      expect(named.json.model).toBe('my-model');
    },
  );

  it.each(['/v1/chat/stream', '/chat/stream', '/v1/chat/completions'])(
    '%s: every chunk names the workflow',
    async (path) => {
      const res = await postStream(`${t.url}${path}`, { ...chat, stream: true });
      const models = new Set((dataOf(res) as Chunk[]).map((c) => c.model));
      expect([...models]).toEqual(['scripted']);
    },
  );

  it('an agent names its configured model', async () => {
    const llm = await FakeLlm.start();
    const agent = await startApp(agentYaml(llm, { _type: 'tool_calling_agent', tool_names: [] }));
    try {
      llm.script(reply.text('Hello.'), reply.text('Hello.'));
      const plain = await postJson(`${agent.url}/v1/chat`, chat);
      expect(plain.json).toMatchObject({ model: 'fake-model' });
      const streamed = await postStream(`${agent.url}/v1/chat/stream`, chat);
      expect(new Set((dataOf(streamed) as Chunk[]).map((c) => c.model))).toEqual(new Set(['fake-model']));
    } finally {
      await agent.close();
      await llm.close();
    }
  });
});
