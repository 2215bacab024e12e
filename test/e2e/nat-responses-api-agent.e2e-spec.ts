import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { captureErrorLog, INTERNAL_ERROR, traceIn } from '../utils/internal-errors';
import { postJson } from '../utils/sse';
import { configFrom, type TestApp } from '../utils/test-app';

/** NAT's responses_api_agent: a tool calling loop over the OpenAI Responses API (`POST /v1/responses`). */
describe('responses_api_agent (NAT)', () => {
  let llm: FakeLlm;
  let t: TestApp | undefined;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const yaml = (workflow: Record<string, unknown> = {}, apiType = 'responses') =>
    stringify({
      llms: {
        openai_llm: {
          _type: 'openai',
          base_url: llm.url,
          model_name: 'gpt-5-mini',
          api_key: 'k',
          max_retries: 0,
          api_type: apiType,
        },
      },
      function_groups: { calculator: { _type: 'calculator' } },
      // NAT's own example's workflow, with a tool that takes arguments.
      workflow: {
        _type: 'responses_api_agent',
        nat_tools: ['calculator__add'],
        builtin_tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
        llm_name: 'openai_llm',
        handle_tool_errors: true,
        ...workflow,
      },
    });

  it('offers its tools to the Responses API, runs the ones the model calls and answers with its last text', async () => {
    t = await apps.start(yaml({ verbose: true }));
    llm.script(
      reply.tools([{ name: 'calculator__add', arguments: { numbers: [2, 3] }, id: 'call_add' }]),
      reply.text('2 + 3 is 5'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is 2 + 3?' });
    expect(res.json).toEqual({ value: '2 + 3 is 5' });
    expect(llm.requests.map((r) => r.path)).toEqual(['/v1/responses', '/v1/responses']);
    const first = llm.requests[0].body;
    expect(first.input).toEqual([{ role: 'user', content: 'What is 2 + 3?' }]);
    expect(first.tools).toEqual([
      expect.objectContaining({ type: 'function', name: 'calculator__add', strict: false }),
      { type: 'code_interpreter', container: { type: 'auto' } },
    ]);
    expect(first.parallel_tool_calls).toBe(false);
    // The model's call goes back with the tool's answer, tied by call_id.
    const second = llm.requests[1].body.input as Record<string, unknown>[];
    expect(second[1]).toMatchObject({ type: 'function_call', call_id: 'call_add', name: 'calculator__add' });
    expect(second[2]).toEqual({ type: 'function_call_output', call_id: 'call_add', output: '5' });
  });

  it('answers a chat face with a chat completion carrying the usage the Responses API reported', async () => {
    t = await apps.start(yaml());
    llm.script(reply.text('Hello', { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 }));
    const res = await postJson(`${t.url}/v1/chat/completions`, {
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { role: 'assistant', content: 'Hello' } }],
      usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 },
    });
  });

  it("answers a failure with NAT's words, or with the failure when verbose (an internal one by its trace)", async () => {
    t = await apps.start(yaml());
    llm.script(reply.error(400, 'model refused'));
    const log = captureErrorLog();
    const quiet = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    const logged = log.lines().join('\n');
    log.restore();
    expect(quiet.json).toEqual({ value: 'I seem to be having a problem.' });
    // NAT's words say nothing: the log has what happened.
    expect(logged).toContain('answered HTTP 400: model refused');
    await t.close();
    t = await apps.start(yaml({ verbose: true }));
    llm.script(reply.error(400, 'model refused'));
    const verbose = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect((verbose.json as { value: string }).value).toMatch(INTERNAL_ERROR);
  });

  it.each([
    [
      'output that is no list (it was "output is not iterable")',
      { output: 'nope' },
      "its answer's output is a string, not a list",
    ],
    [
      'text that is an object (it was passed on as the answer)',
      {
        output: [
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: { evil: 1 } }] },
        ],
      },
      'its output item 0 has text that is an object, not text',
    ],
  ])(
    'an answer with %s fails the call; verbose shows it by its trace, the log says why',
    async (_what, body, why) => {
      const log = captureErrorLog();
      try {
        t = await apps.start(yaml({ verbose: true }));
        llm.script(
          reply.raw(200, JSON.stringify({ id: 'resp_x', object: 'response', status: 'completed', ...body })),
        );
        const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
        const { value } = res.json as { value: string };
        expect(value).toMatch(INTERNAL_ERROR);
        expect(res.text).not.toContain('evil');
        expect(log.lineFor(traceIn(value))).toContain(why);
      } finally {
        log.restore();
      }
    },
  );

  it('stops after max_iterations rounds of tool calls', async () => {
    t = await apps.start(yaml({ max_iterations: 1 }));
    const call = reply.tools([{ name: 'calculator__add', arguments: { numbers: [1, 1] } }]);
    llm.script(call, call);
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'loop' });
    expect(res.json).toEqual({ value: 'I seem to be having a problem.' });
    expect(llm.requests).toHaveLength(2);
  });

  it('refuses at start-up an LLM that calls the chat completions API', () => {
    expect(() => configFrom(yaml({}, 'chat_completion'))).toThrow(
      /workflow: responses_api_agent needs an LLM that calls the Responses API: set api_type: responses on llms\.openai_llm/,
    );
  });
});
