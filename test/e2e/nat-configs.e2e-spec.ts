import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, appWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

// A workflow written for NeMo Agent Toolkit, NAT's field names as its examples use them.
const NAT_AGENT = {
  _type: 'react_agent',
  tool_names: ['calculator'],
  verbose: true,
  parse_agent_response_max_retries: 2,
  retry_parsing_errors: true,
  max_tool_calls: 3,
  log_response_max_chars: 500,
};
const NAT_MODEL = {
  chat_template_kwargs: { thinking: false },
  stop: ['\nThought:'],
  thinking: false,
  num_retries: 0,
};
const NAT_SECTIONS = {
  function_groups: { calculator: { _type: 'calculator' } },
  eval: { general: { profiler: { token_uniqueness_forecast: true }, verbose: true } },
};

describe('a NeMo Agent Toolkit example config, unchanged', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, NAT_AGENT, {}, NAT_MODEL, NAT_SECTIONS),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it("calls the calculator group's tools by NAT's names and sends the model NAT's chat_template_kwargs and stop", async () => {
    llm.script(
      reply.text('Thought: multiply\nAction: calculator__multiply\nAction Input: {"numbers": [6, 7]}'),
      reply.text('Final Answer: 42'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is 6 times 7?' });
    expect(res.json).toEqual({ value: '42' });
    const [first, second] = llm.requests.map((r) => r.body as Record<string, unknown>);
    expect(first.chat_template_kwargs).toEqual({ thinking: false });
    expect(first.stop).toEqual(['\nThought:', 'Observation:']);
    const system = (first.messages as { content: string }[])[0].content;
    for (const tool of ['add', 'subtract', 'multiply', 'divide', 'compare']) {
      expect(system).toContain(`calculator__${tool}:`);
    }
    expect((second.messages as unknown[]).at(-1)).toEqual({ role: 'user', content: 'Observation: 42' });
  });

  it('a tool error (division by zero) reaches the model as the Observation', async () => {
    llm.script(
      reply.text('Action: calculator__divide\nAction Input: {"numbers": [1, 0]}'),
      reply.text('Final Answer: cannot'),
    );
    await postJson(`${t.url}/v1/workflow`, { input_message: '1/0?' });
    expect(JSON.stringify(llm.lastMessage(1))).toContain('Cannot divide by zero.');
  });

  it("honours parse_agent_response_max_retries (NAT's name for max_retries)", async () => {
    llm.script(reply.text('42.'), reply.text('42!'), reply.text('42?'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: '6 * 7?' });
    expect(res.status).toBe(422);
    expect((res.json as { message: string }).message).toContain('after 2 retries (max_retries)');
  });

  it('lists each NAT field it ignores once, naming it and why', () => {
    const ignored = t.config.warnings.filter((w) => w.includes(': ignored: '));
    expect(ignored.map((w) => w.split(': ')[1]).sort()).toEqual([
      'eval.general.profiler',
      'eval.general.verbose',
      'llms.model.thinking',
      'workflow.log_response_max_chars',
    ]);
  });
});

describe('current_timezone', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp('workflow:\n  _type: current_timezone\n')));
  afterAll(() => t.close());

  it("answers the caller's X-Timezone when it names a zone, else Etc/UTC (NAT's default)", async () => {
    const ask = (headers: Record<string, string>) =>
      postJson(`${t.url}/v1/workflow`, {}, headers).then((r) => r.json);
    expect(await ask({ 'X-Timezone': 'Asia/Tokyo' })).toEqual({ value: 'The time zone is Asia/Tokyo' });
    expect(await ask({ 'X-Timezone': 'Mars/Olympus' })).toEqual({ value: 'The time zone is Etc/UTC' });
    expect(await ask({})).toEqual({ value: 'The time zone is Etc/UTC' });
  });
});
