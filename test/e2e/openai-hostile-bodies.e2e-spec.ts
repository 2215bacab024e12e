import { user } from '../utils/chat';
import { client, rawStreamText } from '../utils/openai-client';
import { postJson, postStream } from '../utils/sse';
import { ECHO_OPENAI_YAML, startApp, type TestApp } from '../utils/test-app';

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
    'a "constructor" key as data in a message',
    '{"messages": [{"role": "user", "content": {"constructor": "ACME"}}]}',
  ],
  [
    'constructor.prototype in a content part',
    '{"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "constructor": {"prototype": {"polluted": true}}}]}]}',
  ],
  [
    'a "constructor" key as data in the model',
    '{"model": {"constructor": 1}, "messages": [{"role": "user", "content": "hi"}]}',
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
