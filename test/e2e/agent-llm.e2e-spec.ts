import { createServer } from 'node:net';
import OpenAI from 'openai';
import { createApp } from '../../src/main';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { call } from '../utils/hitl';
import { captureErrorLog, INTERNAL_ERROR, traceIn } from '../utils/internal-errors';
import { openStream } from '../utils/live-sse';
import { configFrom, eventually, startApp, type TestApp } from '../utils/test-app';
import { beforeTimer } from '../utils/timing';

const AGENT = { _type: 'tool_calling_agent' };

/** The app with an environment of its own (API keys), as `interlude serve` would read it. */
async function startWithEnv(yaml: string, env: NodeJS.ProcessEnv): Promise<TestApp> {
  const config = configFrom(yaml, env);
  const app = await createApp(config, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { app, url, config, close: () => app.close() };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('calling the model: retries, failures, settings', () => {
  let llm: FakeLlm;
  const apps: TestApp[] = [];
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterEach(async () => {
    llm.reset();
    await Promise.all(apps.splice(0).map((a) => a.close()));
  });
  afterAll(() => llm.close());
  let log: ReturnType<typeof captureErrorLog>;
  beforeEach(() => (log = captureErrorLog()));
  afterEach(() => log.restore());

  /**
   * A failed model call names the endpoint and what it answered: callers (anonymous ones too) read a
   * stable message with the trace id, and the log line for that trace has the detail.
   */
  function loggedDetail(res: { status: number; json: Record<string, unknown>; text: string }): string {
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'workflow_error',
      message: expect.stringMatching(INTERNAL_ERROR),
      details: 'LLMError',
    });
    expect(res.text).not.toContain(llm.url);
    return log.lineFor(traceIn(res.json.message));
  }

  async function run(model: Record<string, unknown>, input = 'hi') {
    const t = await startApp(agentYaml(llm, AGENT, {}, model));
    apps.push(t);
    return postJson(`${t.url}/v1/workflow`, { input_message: input });
  }
  const who = () => `LLM "model" (model "fake-model" at ${llm.url})`;

  it('a 429 is retried with backoff, then the answer counts', async () => {
    llm.script(
      reply.error(429, 'Rate limit reached', { type: 'requests', code: 'rate_limit_exceeded' }),
      reply.text('ok'),
    );
    const res = await run({ max_retries: 2 });
    expect(res.json).toEqual({ value: 'ok' });
    expect(llm.requests).toHaveLength(2);
  });

  it('5xx answers are retried up to max_retries', async () => {
    llm.script(
      reply.error(500, 'boom', { type: 'server_error' }),
      reply.error(503, 'busy'),
      reply.text('ok'),
    );
    expect((await run({ max_retries: 2 })).json).toEqual({ value: 'ok' });
    expect(llm.requests).toHaveLength(3);
  });

  it('a 429 that outlasts max_retries fails the run, naming the LLM, model, endpoint and status', async () => {
    llm.script(reply.error(429, 'Rate limit reached'), reply.error(429, 'Rate limit reached'));
    const res = await run({ max_retries: 1 });
    expect(loggedDetail(res)).toContain(`${who()} answered HTTP 429 after 1 retry: Rate limit reached`);
    expect(llm.requests).toHaveLength(2);
  });

  it('a 401 fails at once with a clear OpenAI-shaped error on /v1/chat/completions (no retry)', async () => {
    llm.script(reply.error(401, 'Incorrect API key provided: test-key.', { code: 'invalid_api_key' }));
    const t = await startApp(agentYaml(llm, AGENT, {}, { max_retries: 3 }));
    apps.push(t);
    const res = await postJson(`${t.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      error: {
        message: expect.stringMatching(INTERNAL_ERROR),
        type: 'workflow_error',
        param: null,
        code: 'workflow_error',
      },
    });
    expect(res.text).not.toMatch(/\n\s+at |test-key/);
    const { message } = res.json.error as { message: string };
    // The key the endpoint repeats is not repeated in the log.
    expect(log.lineFor(traceIn(message))).toContain(
      `${who()} answered HTTP 401: Incorrect API key provided: ***.`,
    );
    expect(llm.requests).toHaveLength(1);
  });

  it('a 401 without any API key configured says which variable to set', async () => {
    llm.script(reply.error(401, 'Missing API key'));
    const res = await run({ api_key: undefined });
    expect(loggedDetail(res)).toContain(
      `${who()} answered HTTP 401: Missing API key (no API key is configured: set OPENAI_API_KEY or api_key)`,
    );
  });

  it('a bad model name fails with the upstream 404 message', async () => {
    llm.script(reply.error(404, 'The model `fake-model` does not exist', { code: 'model_not_found' }));
    expect(loggedDetail(await run({}))).toContain(
      `${who()} answered HTTP 404: The model \`fake-model\` does not exist`,
    );
  });

  it('a model that does not answer in time fails the run after timeout_seconds', async () => {
    llm.script(reply.hang());
    // the run ends at its 0.3 s, long before a timer due at 20 times that (set first) fires
    const outcome = await beforeTimer(run({ timeout_seconds: 0.3 }), 6000);
    expect(outcome).toMatchObject({ status: 'fulfilled' });
    const res = (outcome as PromiseFulfilledResult<Awaited<ReturnType<typeof run>>>).value;
    expect(loggedDetail(res)).toContain(`${who()} did not answer within 0.3s (timeout_seconds)`);
  });

  it('cancelling the execution stops the model call it waits on', async () => {
    llm.script(reply.hang());
    const t = await startApp(agentYaml(llm, AGENT, {}, { timeout_seconds: 30 }));
    apps.push(t);
    const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'hi' } });
    await eventually(() => expect(llm.requests).toHaveLength(1));
    const id = stream.headers['x-execution-id'] as string;
    expect((await call('DELETE', `${t.url}/executions/${id}`)).status).toBe(204);
    await stream.end();
    expect(stream.events.find((e) => e.event === 'error')?.data).toContain('Execution cancelled');
    await eventually(() => expect(llm.dropped).toBe(1));
  });

  it('an endpoint nobody listens on fails with "could not be reached"', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/v1`;
    const res = await run({ base_url: url });
    expect(res.json.message).toMatch(INTERNAL_ERROR);
    expect(res.text).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    expect(log.lineFor(traceIn(res.json.message))).toMatch(
      new RegExp(
        `LLM "model" \\(model "fake-model" at ${url.replace(/[.]/g, '\\.')}\\) could not be reached: connect ECONNREFUSED 127\\.0\\.0\\.1:\\d+`,
      ),
    );
  });

  it("never shows the endpoint's query string or userinfo (secrets), not even in the log", async () => {
    const port = await closedPort();
    const res = await run({ base_url: `http://bob:pa55word@127.0.0.1:${port}/v1?api-key=s3cret` });
    expect(res.text).not.toMatch(/s3cret|pa55word|127\.0\.0\.1/);
    const line = log.lineFor(traceIn(res.json.message));
    expect(line).toContain(`at http://127.0.0.1:${port}/v1?…)`);
    expect(line).not.toMatch(/s3cret|pa55word/);
  });

  it('sends the configured model, key, sampling settings and headers', async () => {
    llm.script(reply.text('ok'));
    await run({ temperature: 0.2, top_p: 0.9, max_tokens: 256, seed: 7, headers: { 'X-Team': 'agents' } });
    const [request] = llm.requests;
    expect(request.body).toMatchObject({
      model: 'fake-model',
      temperature: 0.2,
      top_p: 0.9,
      max_tokens: 256,
      seed: 7,
    });
    expect(request.headers).toMatchObject({ authorization: 'Bearer test-key', 'x-team': 'agents' });
  });

  it('llm_name as a list picks the first LLM whose API key is set: NIM or OpenAI by the key at hand', async () => {
    const yaml = (base: string) => `
llms:
  nim_llm: { _type: nim, base_url: '${base}', model_name: meta/llama-3.1-70b-instruct, max_retries: 0 }
  openai_llm: { _type: openai, base_url: '${base}', model_name: gpt-4o-mini, max_retries: 0 }
workflow: { _type: tool_calling_agent, llm_name: [nim_llm, openai_llm] }
`;
    for (const [env, model, key] of [
      [{ NVIDIA_API_KEY: 'nvapi-1' }, 'meta/llama-3.1-70b-instruct', 'nvapi-1'],
      [{ OPENAI_API_KEY: 'sk-1' }, 'gpt-4o-mini', 'sk-1'],
    ] as const) {
      llm.reset();
      llm.script(reply.text('ok'));
      const t = await startWithEnv(yaml(llm.url), env);
      apps.push(t);
      const sdk = new OpenAI({ baseURL: `${t.url}/v1`, apiKey: 'x' });
      const completion = await sdk.chat.completions.create({
        model: 'a',
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(completion.choices[0].message.content).toBe('ok');
      expect(llm.requests[0].body.model).toBe(model);
      expect(llm.requests[0].headers.authorization).toBe(`Bearer ${key}`);
    }
  });
});
