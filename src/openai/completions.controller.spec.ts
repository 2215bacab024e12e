import OpenAI from 'openai';
import { user } from '../../test/utils/chat';
import { echoResponder } from '../../test/utils/echo-responder';
import { client } from '../../test/utils/openai-client';
import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { postJson } from '../../test/utils/sse';
import { configFrom, ECHO_YAML } from '../../test/utils/test-app';
import { mounted } from '../core/http/route-mount';
import { resolveRoutes } from '../routes';
import { chatMounts } from './openai.module';

describe('/v1/chat/completions request validation', () => {
  let t: SlimApp;
  beforeAll(async () => {
    const config = configFrom(ECHO_YAML);
    const mounts = chatMounts(config, resolveRoutes(config.settings.general.front_end));
    t = await slimApp({ config, imports: mounted(mounts), replace: [echoResponder().replace] });
  });
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
