import { echoResponder } from '../../test/utils/echo-responder';
import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { postJson } from '../../test/utils/sse';
import { user } from '../../test/utils/chat';
import { mounted } from '../core/http/route-mount';
import { resolveRoutes } from '../routes';
import { configFrom, ECHO_YAML } from '../../test/utils/test-app';
import { chatMounts } from './openai.module';

/** The chat routes at their paths, with the real ChatService over an echoing responder. */
function chatApp(): Promise<SlimApp> {
  const config = configFrom(ECHO_YAML);
  const mounts = chatMounts(config, resolveRoutes(config.settings.general.front_end));
  return slimApp({ config, imports: mounted(mounts), replace: [echoResponder().replace] });
}

describe('chat request validation', () => {
  let t: SlimApp;
  beforeAll(async () => (t = await chatApp()));
  afterAll(() => t.close());

  const paths = ['/v1/chat', '/chat', '/v1/chat/stream', '/chat/stream'];

  it.each(paths)('%s: a bad role is 422 at body.messages.0.role', async (path) => {
    const res = await postJson(`${t.url}${path}`, { messages: [{ role: 'wizard', content: 'hi' }] });
    expect(res.status).toBe(422);
    const detail = res.json.detail as Record<string, unknown>[];
    expect(detail).toHaveLength(1);
    expect(detail[0]).toMatchObject({ loc: ['body', 'messages', 0, 'role'], input: 'wizard' });
    expect(Object.keys(detail[0]).sort()).toEqual(['input', 'loc', 'msg', 'type']);
    expect(typeof detail[0].type).toBe('string');
    expect(typeof detail[0].msg).toBe('string');
  });

  it.each(paths)('%s: an empty message list is too_short', async (path) => {
    const res = await postJson(`${t.url}${path}`, { messages: [] });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      expect.objectContaining({ type: 'too_short', loc: ['body', 'messages'] }),
    ]);
  });

  it.each(paths)('%s: absent messages are missing', async (path) => {
    const res = await postJson(`${t.url}${path}`, { model: 'x' });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'messages'], msg: 'Field required', input: null }],
    });
  });

  it('reports the index of the bad message', async () => {
    const res = await postJson(`${t.url}/v1/chat`, {
      messages: [
        { role: 'user', content: 'ok' },
        { role: 'user', content: 'ok' },
        { role: 42, content: 'bad' },
      ],
    });
    expect(res.status).toBe(422);
    expect((res.json.detail as { loc: unknown[] }[])[0].loc).toEqual(['body', 'messages', 2, 'role']);
  });

  it('a wrongly typed OpenAI field is 422 at its loc', async () => {
    const res = await postJson(`${t.url}/v1/chat`, { ...user('hi'), temperature: 'hot' });
    expect(res.status).toBe(422);
    expect((res.json.detail as { loc: unknown[] }[])[0].loc).toEqual(['body', 'temperature']);
  });

  it.each([
    ['user', { role: 'user', content: null }],
    ['system', { role: 'system', content: null }],
    ['assistant without tool_calls', { role: 'assistant', content: null }],
    ['assistant with empty tool_calls', { role: 'assistant', content: null, tool_calls: [] }],
  ])('content: null on a %s message is 422', async (_name, message) => {
    const res = await postJson(`${t.url}/v1/chat`, { messages: [{ role: 'user', content: 'q' }, message] });
    expect(res.status).toBe(422);
    expect((res.json.detail as { loc: unknown[] }[])[0].loc).toEqual(['body', 'messages', 1, 'content']);
  });

  it.each(paths)('%s: invalid JSON is 422 json_invalid', async (path) => {
    const res = await postJson(`${t.url}${path}`, '{"messages": [');
    expect(res.status).toBe(422);
    expect((res.json.detail as { type: string }[])[0].type).toBe('json_invalid');
  });

  it.each(paths)('%s: a text/plain body is 422 missing', async (path) => {
    const res = await postJson(`${t.url}${path}`, JSON.stringify(user('hi')), {
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(422);
    expect((res.json.detail as { type: string }[])[0].type).toBe('missing');
  });

  it('no body at all is 422 missing', async () => {
    const res = await fetch(`${t.url}/v1/chat`, { method: 'POST' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { type: string }[] }).detail[0].type).toBe('missing');
  });
});

describe('answers to large bad input stay small', () => {
  let t: SlimApp;
  beforeAll(async () => (t = await chatApp()));
  afterAll(() => t.close());

  it('a 422 lists at most 20 issues and echoes at most 1,000 characters of any input', async () => {
    const big = 'x'.repeat(50_000);
    const messages = Array.from({ length: 100 }, () => ({ role: big, content: 'hi' }));
    const res = await postJson(`${t.url}/v1/chat`, { messages });
    expect(res.status).toBe(422);
    const detail = res.json.detail as { type: string; loc: unknown[]; msg: string; input: unknown }[];
    expect(detail).toHaveLength(21);
    expect(detail[20]).toEqual({
      type: 'too_many_errors',
      loc: ['body'],
      msg: '80 more issues not listed',
      input: null,
    });
    expect(detail[0]).toMatchObject({ loc: ['body', 'messages', 0, 'role'] });
    expect((detail[0].input as string).length).toBeLessThanOrEqual(1001);
    expect(res.text.length).toBeLessThan(40_000);
  });
});

describe('streaming routes take smaller bodies (max_stream_body_bytes)', () => {
  let t: SlimApp;
  beforeAll(async () => (t = await chatApp()));
  afterAll(() => t.close());

  const big = { input_message: 'x'.repeat(1_500_000) };

  it('a 1.5 MB body is 413 on /v1/chat/stream by default (1 MiB)', async () => {
    const res = await postJson(`${t.url}/v1/chat/stream`, {
      messages: [{ role: 'user', content: big.input_message }],
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ detail: expect.stringMatching(/max_stream_body_bytes/) });
  });
});
