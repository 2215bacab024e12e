import type { AppConfig } from '../config/config.loader';
import { echoResponder, type EchoResponder } from '../../test/utils/echo-responder';
import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { postJson } from '../../test/utils/sse';
import { configFrom, ECHO_YAML, scriptedYaml } from '../../test/utils/test-app';
import { mounted } from '../core/http/route-mount';
import { resolveRoutes } from '../routes';
import { generateMounts } from './workflows.module';

/**
 * The generate routes of `config` at its paths (the workflow's, its legacy alias, the endpoints'),
 * over an echoing responder.
 */
async function generateApp(config: AppConfig): Promise<{ t: SlimApp; responder: EchoResponder }> {
  const { responder, replace } = echoResponder();
  const routes = resolveRoutes(config.settings.general.front_end);
  const mounts = generateMounts(config, routes).map((m) => m.mount);
  const t = await slimApp({ config, imports: mounted(mounts), replace: [replace] });
  return { t, responder };
}

describe('generate routes: the body is checked against the workflow input', () => {
  let t: SlimApp;
  let responder: EchoResponder;
  beforeAll(async () => ({ t, responder } = await generateApp(configFrom(ECHO_YAML))));
  afterAll(() => t.close());

  it('rejects a body without the input field with a FastAPI-style 422', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { msg: 'x' });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [{ type: 'missing', loc: ['body', 'message'], msg: 'Field required', input: null }],
    });
  });

  it('rejects a wrong type with string_type at the right loc', async () => {
    const res = await postJson(`${t.url}/generate`, { message: 42 });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      { type: 'string_type', loc: ['body', 'message'], msg: 'Input should be a valid string', input: 42 },
    ]);
  });

  it('a refused body never reaches the workflow; a good one reaches it as sent', async () => {
    responder.received.length = 0;
    await postJson(`${t.url}/v1/workflow`, { msg: 'x' });
    await postJson(`${t.url}/v1/workflow/stream`, '{"message": ');
    expect(responder.received).toEqual([]);
    const ok = await postJson(`${t.url}/v1/workflow`, { message: 'hi', extra: [1] });
    expect(ok.json).toEqual({ value: 'hi' });
    expect(responder.received).toEqual([{ message: 'hi', extra: [1] }]);
  });
});

describe('requests the server refuses', () => {
  let t: SlimApp;
  beforeAll(
    async () =>
      ({ t } = await generateApp(
        configFrom(
          ECHO_YAML.replace('workflow:', 'general:\n  front_end:\n    max_body_bytes: 1024\nworkflow:'),
        ),
      )),
  );
  afterAll(() => t.close());

  it('a body over max_body_bytes is 413 with a message', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, { message: 'x'.repeat(5000) });
    expect(res.status).toBe(413);
    expect(String(res.json.detail)).toMatch(/larger than the limit/);
  });

  it('unparsable JSON is a 422 json_invalid, not a 500', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, '{"message": "unterminated');
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      expect.objectContaining({
        type: 'json_invalid',
        msg: 'JSON decode error',
        loc: ['body', expect.any(Number)],
      }),
    ]);
  });

  it('a body sent as text/plain is a 422 (missing body), not a 500', async () => {
    const res = await fetch(`${t.url}/generate`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      detail: [{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }],
    });
  });

  it.each([
    ['null', 'null'],
    ['an array', '[1,2]'],
    ['a string', '"hi"'],
    ['a huge number', '1e400'],
    ['a __proto__ key', '{"__proto__": {"polluted": true}, "message": "ok"}'],
    ['a lone surrogate', '{"message": "\\ud800"}'],
    ['deep nesting', `{"message": "x", "extra": ${'['.repeat(5000)}${']'.repeat(5000)}}`],
  ])('%s never produces a 5xx or changes later behaviour', async (_name, body) => {
    const res = await postJson(`${t.url}/v1/workflow`, body);
    expect(res.status).toBeLessThan(500);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const after = await postJson(`${t.url}/v1/workflow`, { message: 'still fine' });
    expect(after.json).toEqual({ value: 'still fine' });
  });

  it.each([
    ['/v1/workflow', 422],
    ['/v1/workflow/stream', 422],
  ])('a body nested deeper than 64 levels is refused on %s before validation', async (path, status) => {
    const res = await postJson(
      `${t.url}${path}`,
      `{"message": "x", "extra": ${'['.repeat(64)}${']'.repeat(64)}}`,
    );
    expect(res.status).toBe(status);
    expect(res.json).toEqual({
      detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON nested deeper than 64 levels', input: {} }],
    });
    const within = await postJson(
      `${t.url}/v1/workflow`,
      `{"message": "ok", "extra": ${'['.repeat(63)}${']'.repeat(63)}}`,
    );
    expect(within.json).toEqual({ value: 'ok' });
  });

  it('a __proto__ key is ignored as data: the request still validates on its own fields', async () => {
    const res = await postJson(`${t.url}/v1/workflow`, '{"__proto__": {"message": "smuggled"}}');
    expect(res.status).toBe(422);
  });

  it('an unknown route is a JSON 404', async () => {
    const res = await postJson(`${t.url}/nope`, {});
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect(res.json).toEqual({ detail: 'Not Found' });
  });

  it('a known route with the wrong method is 405 with Allow', async () => {
    const res = await fetch(`${t.url}/v1/workflow`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toEqual({ detail: 'Method Not Allowed' });
  });
});

describe('streaming routes take smaller bodies (max_stream_body_bytes)', () => {
  let t: SlimApp;
  beforeAll(async () => ({ t } = await generateApp(configFrom(ECHO_YAML))));
  afterAll(() => t.close());

  const big = { input_message: 'x'.repeat(1_500_000) };

  it.each(['/v1/workflow/stream', '/generate/stream', '/v1/workflow/full'])(
    'a 1.5 MB body is 413 on %s by default (1 MiB)',
    async (path) => {
      const res = await postJson(`${t.url}${path}`, big);
      expect(res.status).toBe(413);
      expect(res.json).toEqual({ detail: expect.stringMatching(/max_stream_body_bytes/) });
    },
  );
});

describe('general.front_end.endpoints: functions served at their own paths, as NAT does', () => {
  const YAML = `general:
  front_end:
    endpoints:
      - { method: POST, path: /tools/shout, description: Echo it back, function_name: shout }
functions:
  shout: { _type: echo }
${scriptedYaml(`- stream: { text: 'main workflow' }`, 'main workflow')}`;
  let t: SlimApp;
  beforeAll(async () => ({ t } = await generateApp(configFrom(YAML))));
  afterAll(() => t.close());

  const send = (method: string, path: string, body?: unknown) =>
    fetch(`${t.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it("validates the body against the function's input (422)", async () => {
    const res = await send('POST', '/tools/shout', { text: 'no message' });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0].loc).toEqual([
      'body',
      'message',
    ]);
  });
});

describe('general.auth.require_identity', () => {
  let t: SlimApp;
  let responder: EchoResponder;
  beforeAll(
    async () =>
      ({ t, responder } = await generateApp(
        configFrom(`general:\n  auth: { require_identity: true }\n${ECHO_YAML}`),
      )),
  );
  afterAll(() => t.close());

  it('an anonymous caller gets 401 before its body is looked at; an identified one gets to validation', async () => {
    const anon = await postJson(`${t.url}/v1/workflow`, { msg: 'no input field' });
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer');
    expect(String(anon.json.detail)).toMatch(/requires you to identify yourself/);
    const known = await postJson(
      `${t.url}/v1/workflow`,
      { msg: 'no input field' },
      { cookie: 'nat-session=bob' },
    );
    expect(known.status).toBe(422);
    expect(responder.received).toEqual([]);
  });
});
