import { builtinRegistry } from '../../src/runtime/builtin-functions';
import { defineTool } from '../../src/runtime/tools/define-tool';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, CALCULATOR, appWithFakeLlm } from '../utils/fake-llm-config';
import { linesWith, postJson, postStream } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

const AGENT = { _type: 'tool_calling_agent', tool_names: ['calculator'] };

interface RawStep {
  id: string;
  type: string;
  name: string;
  payload: string;
}

describe('tool_calling_agent', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, { ...AGENT, system_prompt: 'You are exact.' }, CALCULATOR),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it('calls calculator and answers with what the model says after reading its result', async () => {
    llm.script(
      reply.tools([{ name: 'calculator', arguments: { expression: '(3 + 4) * 2' }, id: 'call_a' }]),
      reply.text('(3 + 4) * 2 is 14.'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is (3 + 4) * 2?' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: '(3 + 4) * 2 is 14.' });

    const [first, second] = llm.requests.map((r) => r.body);
    expect(first).toMatchObject({
      model: 'fake-model',
      stream: false,
      messages: [
        { role: 'system', content: 'You are exact.' },
        { role: 'user', content: 'What is (3 + 4) * 2?' },
      ],
    });
    expect(first.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'calculator',
          description: expect.stringContaining('arithmetic expression'),
          parameters: expect.objectContaining({ required: ['expression'] }),
        },
      },
    ]);
    expect(second.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_a',
            type: 'function',
            function: { name: 'calculator', arguments: '{"expression":"(3 + 4) * 2"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: '14' },
    ]);
    expect(llm.requests[0].headers.authorization).toBe('Bearer test-key');
  });

  it('/v1/workflow/full shows the run: FUNCTION, LLM (tokens, usage), TOOL steps in order', async () => {
    llm.script(
      reply.tools([{ name: 'calculator', arguments: { expression: '2+2' } }], '', {
        prompt_tokens: 30,
        completion_tokens: 8,
        total_tokens: 38,
      }),
      reply.text('It is 4.'),
    );
    const res = await postStream(`${t.url}/v1/workflow/full`, { input_message: '2+2?' });
    expect(res.status).toBe(200);
    const steps = res.lines
      .filter((l) => l.startsWith('intermediate_data: '))
      .map((l) => JSON.parse(l.slice('intermediate_data: '.length)) as RawStep);
    expect(steps.map((s) => `${s.type} ${s.name}`)).toEqual([
      'FUNCTION_START workflow',
      'LLM_START fake-model',
      'LLM_END fake-model',
      'TOOL_START calculator',
      'TOOL_END calculator',
      'LLM_START fake-model',
      'LLM_NEW_TOKEN fake-model',
      'LLM_NEW_TOKEN fake-model',
      'LLM_NEW_TOKEN fake-model',
      'LLM_END fake-model',
      'FUNCTION_END workflow',
    ]);
    const payload = (s: RawStep) => JSON.parse(s.payload) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(payload(steps[2]).usage_info).toEqual({
      token_usage: { prompt_tokens: 30, completion_tokens: 8, total_tokens: 38 },
      num_llm_calls: 1,
      seconds_between_calls: 0,
    });
    expect(payload(steps[3]).data.input).toEqual({ expression: '2+2' });
    expect(payload(steps[4]).data.output).toBe('4');
    // token events carry their LLM_START's id, as NAT's do; each carries its piece of text
    expect(steps.slice(6, 9).every((s) => s.id === steps[5].id)).toBe(true);
    expect(steps.slice(6, 9).map((s) => payload(s).data.chunk)).toEqual(['It', ' is', ' 4.']);
    expect(payload(steps[9]).data.output).toBe('It is 4.');
    // the model was asked to stream, with usage
    expect(llm.requests[1].body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const values = res.events.filter((e) => e.event === undefined).map((e) => JSON.parse(e.data) as unknown);
    expect(values).toEqual([{ value: 'It' }, { value: ' is' }, { value: ' 4.' }]);
  });

  it('a tool error goes back to the model (handle_tool_errors), and so does an unknown tool', async () => {
    llm.script(
      reply.tools([
        { name: 'calculator', arguments: { expression: '2 +* 2' } },
        { name: 'web_search', arguments: { q: 'x' } },
      ]),
      reply.text('Sorry, I could not compute that.'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: '2 +* 2?' });
    expect(res.json).toEqual({ value: 'Sorry, I could not compute that.' });
    const [calc, search] = llm.requests[1].body.messages.slice(-2);
    expect(calc.content).toMatch(/^Error: Cannot evaluate "2 \+\* 2": /);
    expect(search.content).toBe('Error: there is no tool named "web_search". Available tools: calculator.');
  });

  it("the model gets the arguments problem when they do not fit the schema; the failed step keeps the tool's name", async () => {
    llm.script(reply.tools([{ name: 'calculator', arguments: { expr: '1' } }]), reply.text('Oops.'));
    const res = await postStream(`${t.url}/v1/workflow/stream`, { input_message: 'x' });
    const problem = `Invalid arguments: arguments must have required property 'expression'; arguments must NOT have additional properties ("expr")`;
    expect(llm.lastMessage(1).content).toBe(`Error: ${problem}`);
    const steps = (linesWith(res, 'intermediate_data') as { name: string; payload: string }[]).filter((s) =>
      s.name.startsWith('Tool'),
    );
    expect(steps.map((s) => s.name)).toEqual(['Tool: calculator', 'Tool: calculator']);
    expect(steps[1].payload).toContain(`ToolInputError: ${problem}`);
  });

  it('continues a chat: history with tool calls and tool results reaches the model; a chat completion back', async () => {
    llm.script(reply.text('Then it is 28.', { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 }));
    const call = {
      id: 'c1',
      type: 'function',
      function: { name: 'calculator', arguments: '{"expression":"7*2"}' },
    };
    const messages = [
      { role: 'user', content: 'What is 7*2?' },
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: '14' },
      { role: 'assistant', content: '14.' },
      { role: 'user', content: 'And twice that?' },
    ];
    const res = await postJson(`${t.url}/v1/chat`, { messages, model: 'agent' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      object: 'chat.completion',
      model: 'agent',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Then it is 28.' }, finish_reason: 'stop' },
      ],
      usage: { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 },
    });
    expect(llm.requests[0].body.messages).toEqual([
      { role: 'system', content: 'You are exact.' },
      ...messages,
    ]);
  });
});

describe('tool_calling_agent limits and parallel calls', () => {
  let llm: FakeLlm;
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterEach(() => llm.reset());
  afterAll(() => llm.close());

  it('runs the tools of one turn at the same time, answering each call in order', async () => {
    // Each call waits until both have started: run one after the other, they would never finish.
    const started: (() => void)[] = [];
    const both = new Promise<void>((resolve) => started.push(resolve));
    let running = 0;
    const gate = defineTool<{ _type: string }, { name: string }>({
      type: 'gate',
      description: 'Waits for its twin',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      run: async ({ name }) => {
        if (++running === 2) started[0]();
        await both;
        return `${name} passed`;
      },
    });
    const t = await startApp(
      agentYaml(llm, { _type: 'tool_calling_agent', tool_names: ['gate'] }, { gate: { _type: 'gate' } }),
      builtinRegistry().register(gate),
    );
    try {
      llm.script(
        reply.tools([
          { name: 'gate', arguments: { name: 'first' }, id: 'g1' },
          { name: 'gate', arguments: { name: 'second' }, id: 'g2' },
        ]),
        reply.text('Both passed.'),
      );
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
      expect(res.json).toEqual({ value: 'Both passed.' });
      expect(llm.requests[1].body.messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: 'g1', content: 'first passed' },
        { role: 'tool', tool_call_id: 'g2', content: 'second passed' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('fails clearly after max_iterations calls to the model without an answer', async () => {
    const t = await startApp(agentYaml(llm, { ...AGENT, max_iterations: 2 }, CALCULATOR));
    try {
      const again = () => reply.tools([{ name: 'calculator', arguments: { expression: '1+1' } }]);
      llm.script(again(), again(), again());
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'loop' });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({
        code: 'workflow_error',
        message:
          'Agent "workflow" made 2 calls to the model (max_iterations) without reaching a final answer ' +
          '(LLM "model", model "fake-model")',
        details: 'MaxIterationsReached',
      });
      expect(llm.requests).toHaveLength(2);
    } finally {
      await t.close();
    }
  });

  it('with handle_tool_errors: false a tool error fails the run', async () => {
    const t = await startApp(agentYaml(llm, { ...AGENT, handle_tool_errors: false }, CALCULATOR));
    try {
      llm.script(reply.tools([{ name: 'calculator', arguments: { expression: 'nope(' } }]));
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      expect(res.status).toBe(422);
      expect(res.json).toMatchObject({
        message: expect.stringMatching(/^Cannot evaluate "nope\(":/),
        details: 'ToolInputError',
      });
      expect(llm.requests).toHaveLength(1);
    } finally {
      await t.close();
    }
  });

  it("an agent can be another agent's tool; the usage of both counts", async () => {
    const yaml = agentYaml(
      llm,
      { _type: 'tool_calling_agent', tool_names: ['math_agent'] },
      {
        ...CALCULATOR,
        math_agent: {
          _type: 'react_agent',
          llm_name: 'model',
          tool_names: ['calculator'],
          description: 'Does math',
        },
      },
    );
    const t = await startApp(yaml);
    try {
      const usage = (n: number) => ({ prompt_tokens: n, completion_tokens: 1, total_tokens: n + 1 });
      llm.script(
        reply.tools([{ name: 'math_agent', arguments: { input_message: '6*7' } }], '', usage(100)),
        reply.text('Final Answer: 42', usage(20)),
        reply.text('The answer is 42.', usage(3)),
      );
      const res = await postJson(`${t.url}/v1/chat`, { messages: [{ role: 'user', content: '6*7?' }] });
      expect(res.json).toMatchObject({
        choices: [{ message: { content: 'The answer is 42.' } }],
        usage: { prompt_tokens: 123, completion_tokens: 3, total_tokens: 126 },
      });
      expect(llm.requests[0].body.tools![0].function).toMatchObject({
        name: 'math_agent',
        description: 'Does math',
        parameters: { required: ['input_message'] },
      });
      expect(llm.requests[1].body.messages.at(-1)).toEqual({ role: 'user', content: '6*7' });
      expect(llm.lastMessage(2)).toMatchObject({ role: 'tool', content: '42' });
    } finally {
      await t.close();
    }
  });
});
