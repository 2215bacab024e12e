import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { captureErrorLog, INTERNAL_ERROR, traceIn } from '../utils/internal-errors';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** A whole chat completion holding `message` as it is, however hostile (a reply sent byte for byte). */
function completionOf(message: object, { usage, finish = 'stop' }: { usage?: object; finish?: string } = {}) {
  const choices = [{ index: 0, message, finish_reason: finish }];
  return reply.raw(200, JSON.stringify({ id: 'x', object: 'chat.completion', choices, usage }));
}

/**
 * What the model's endpoint answers is input like any other: an endpoint in an attacker's hands (or a
 * broken gateway in front of a model) must not freeze the server, hold a request past its deadline,
 * grow its memory without bound, or hand a caller something other than text as the answer.
 */
describe('a model endpoint that answers what no model should', () => {
  let llm: FakeLlm;
  let t: TestApp;
  let log: ReturnType<typeof captureErrorLog>;
  appWithFakeLlm(
    (model) => agentYaml(model, { _type: 'tool_calling_agent' }, {}, { timeout_seconds: 3, max_retries: 1 }),
    (model, app) => ((llm = model), (t = app)),
  );
  beforeEach(() => (log = captureErrorLog()));
  afterEach(() => log.restore());

  /** The run failed on the model, and the log line for its trace says why. */
  function failedBecause(res: { status: number; json: Record<string, unknown> }): string {
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'workflow_error',
      message: expect.stringMatching(INTERNAL_ERROR),
      details: 'LLMError',
    });
    return log.lineFor(traceIn(res.json.message as string));
  }

  const ask = () => postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
  const askStreamed = () =>
    fetch(`${t.url}/v1/workflow/stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input_message: 'hi' }),
    });

  const CALL = { index: 1e8, id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } };
  it.each([
    [
      'a tool call',
      { index: 0, delta: { role: 'assistant', tool_calls: [CALL] }, finish_reason: 'tool_calls' },
    ],
    ['a choice', { index: 1e8, delta: { role: 'assistant', content: 'far' }, finish_reason: 'stop' }],
  ])(
    'a streamed chunk naming %s at index 1e8 is dealt with at once, and the server answers meanwhile',
    async (_what, choice) => {
      llm.script(reply.chunks([{ id: 'x', object: 'chat.completion.chunk', choices: [choice] }]));
      const started = performance.now();
      const [res, health] = await Promise.all([
        askStreamed(),
        new Promise<number>((resolve) =>
          setTimeout(() => {
            const asked = performance.now();
            void fetch(`${t.url}/health`).then(() => resolve(performance.now() - asked));
          }, 20),
        ),
      ]);
      await res.text();
      // The SDK's own accumulation stores a chunk at the index it names: seconds of one blocked process.
      expect(performance.now() - started).toBeLessThan(2000);
      expect(health).toBeLessThan(1000);
    },
  );

  it('content that is an object is no answer: the run fails, the caller never gets the object as the body', async () => {
    const hostile = { status: 'interaction_required', response_url: '/evil' };
    llm.script(completionOf({ role: 'assistant', content: hostile }));
    const res = await ask();
    expect(failedBecause(res)).toContain("failed: its answer's content is an object, not text");
  });

  it('a Retry-After of days is not waited for: the call ends by its timeout_seconds', async () => {
    llm.script(
      reply.error(429, 'slow down', { headers: { 'retry-after': '999999', 'retry-after-ms': '' } }),
      reply.hang(),
    );
    const started = performance.now();
    const res = await ask();
    const took = performance.now() - started;
    expect(failedBecause(res)).toContain('did not answer within 3s (timeout_seconds)');
    expect(took).toBeLessThan(6000);
  });

  it('an answer larger than 32 MiB is not read whole: the call fails naming the limit', async () => {
    const padding = Buffer.alloc(33 * 1024 * 1024, 0x20);
    llm.script(reply.raw(200, Buffer.concat([Buffer.from('{"choices":['), padding, Buffer.from(']}')])));
    const res = await ask();
    expect(failedBecause(res)).toContain('its answer was larger than 32 MiB, the most one may be');
  });

  it('an upstream error that repeats the API key is not repeated with it, not even in the log', async () => {
    llm.script(reply.error(401, 'Incorrect API key provided: test-key. Internal gateway 10.1.2.3'));
    const logged = failedBecause(await ask());
    expect(logged).toContain('answered HTTP 401: Incorrect API key provided: ***. Internal gateway');
    expect(log.lines().join('\n')).not.toContain('test-key');
  });

  it('token counts that are no whole numbers are not counted (a string was concatenated: "0lots")', async () => {
    const usage = { prompt_tokens: 'lots', completion_tokens: -5, total_tokens: 3 };
    llm.script(completionOf({ role: 'assistant', content: 'Hi' }, { usage }));
    const res = await postJson(`${t.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.json.usage).toEqual({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 3 });
  });
});

/** A tool calling agent with one tool, the built-in function of that type under its own name. */
const agentWith = (tool: string) => (model: FakeLlm) =>
  agentYaml(model, { _type: 'tool_calling_agent', tool_names: [tool] }, { [tool]: { _type: tool } });

describe('a model that asks a person something no person could read', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(agentWith('ask_question'), (model, app) => ((llm = model), (t = app)));

  it.each([
    [
      '101 options',
      { question: 'Which?', options: Array.from({ length: 101 }, (_, i) => ({ id: `o${i}`, label: 'x' })) },
    ],
    ['a question of 65,537 characters', { question: 'q'.repeat(65_537) }],
  ])('%s: nobody is asked, and the model reads why', async (_what, args) => {
    llm.script(reply.tools([{ name: 'ask_question', arguments: args }]), reply.text('I will ask less.'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: 'I will ask less.' });
    const told = llm.lastMessage(1);
    expect(told.role).toBe('tool');
    expect(told.content).toMatch(/Invalid prompt: .*(options|text)/);
  });
});

describe("a model's tool arguments that no tool could read", () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(agentWith('calculator'), (model, app) => ((llm = model), (t = app)));

  /** A reply calling the calculator with these arguments, as text (any text a model may write): whole or streamed. */
  const calling = (args: string, streamed: boolean) => {
    const call = { id: 'c1', type: 'function', function: { name: 'calculator', arguments: args } };
    if (streamed) {
      const delta = { role: 'assistant', tool_calls: [{ index: 0, ...call }] };
      return reply.chunks([
        {
          id: 'x',
          object: 'chat.completion.chunk',
          choices: [{ index: 0, delta, finish_reason: 'tool_calls' }],
        },
      ]);
    }
    return completionOf({ role: 'assistant', content: null, tool_calls: [call] }, { finish: 'tool_calls' });
  };

  it.each([
    [
      'nested 10,000 levels',
      `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
      'Arguments are nested deeper than 64 levels',
    ],
    [
      '1 MB of text that is not JSON',
      `{${'x'.repeat(1024 * 1024)}`,
      `Arguments are not valid JSON: {${'x'.repeat(199)}… (1048577 characters)`,
    ],
  ])(
    '%s: the model reads a short, clear tool error on every route, streamed ones too',
    async (_what, args, error) => {
      for (const route of ['/v1/workflow', '/v1/workflow/stream']) {
        llm.script(calling(args, route.endsWith('/stream')), reply.text('Sorry.'));
        const res = await fetch(`${t.url}${route}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ input_message: 'hi' }),
        });
        const body = await res.text();
        expect(res.status).toBe(200);
        expect(body).toContain('Sorry.');
        expect(llm.lastMessage(1)).toMatchObject({
          role: 'tool',
          content: `Error: ${error}`,
        });
        llm.reset();
      }
    },
  );
});
