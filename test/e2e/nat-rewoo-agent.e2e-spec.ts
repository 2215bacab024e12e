import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { configFrom, type TestApp } from '../utils/test-app';

/** NAT's rewoo_agent: plan every tool call up front, run the plan, solve from its evidence. */
describe('rewoo_agent (NAT)', () => {
  let llm: FakeLlm;
  let t: TestApp | undefined;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const yaml = (workflow: Record<string, unknown> = {}) =>
    stringify({
      llms: {
        nim_llm: { _type: 'openai', base_url: llm.url, model_name: 'fake', api_key: 'k', max_retries: 0 },
      },
      function_groups: { calculator: { _type: 'calculator' } },
      workflow: {
        _type: 'rewoo_agent',
        tool_names: ['calculator'],
        llm_name: 'nim_llm',
        verbose: true,
        tool_call_max_retries: 1,
        ...workflow,
      },
    });
  const step = (placeholder: string, tool: string, toolInput: unknown, plan = `Step ${placeholder}`) => ({
    plan,
    evidence: { placeholder, tool, tool_input: toolInput },
  });

  it("plans with NAT's prompts, runs each step with earlier evidence in place and solves from the evidence", async () => {
    t = await apps.start(yaml());
    llm.script(
      reply.text(
        JSON.stringify([
          step('#E1', 'calculator__add', [2, 3], 'Add 2 and 3'),
          step('#E2', 'calculator__multiply', '{"numbers": [#E1, 4]}', 'Multiply the sum by 4'),
        ]),
      ),
      reply.text('20'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is (2+3)*4?' });
    expect(res.json).toEqual({ value: '20' });
    const [plannerSystem, plannerUser] = llm.requests[0].body.messages;
    expect(plannerSystem.content).toContain(
      'The tool calls you make should be one of the following: [calculator__add,calculator__subtract,calculator__multiply,calculator__divide,calculator__compare]',
    );
    expect(plannerSystem.content).toContain('calculator__add: Add two or more numbers together.');
    expect(plannerSystem.content).toContain('"placeholder": "#E1",\n');
    expect(plannerUser).toEqual({
      role: 'user',
      content: '\nPrevious conversation history:\n\n\ntask: What is (2+3)*4?\n',
    });
    const [solverSystem, solverUser] = llm.requests[1].body.messages;
    expect(solverSystem.content).toMatch(/^\nSolve the following task or problem\./);
    expect(solverUser.content).toBe(
      '\nplan: Plan: Add 2 and 3\n#E1 = calculator__add[[2, 3]\nResult: 5\n\n' +
        'Plan: Multiply the sum by 4\n#E2 = calculator__multiply[{"numbers": [5, 4]}\nResult: 20\n\n\n' +
        'task: What is (2+3)*4?\n\nResponse:\n',
    );
  });

  it('gives the planner the conversation before the task as NAT names its roles', async () => {
    t = await apps.start(yaml());
    llm.script(reply.text(JSON.stringify([step('#E1', 'calculator__add', [1, 1])])), reply.text('2'));
    const res = await postJson(`${t.url}/v1/chat/completions`, {
      messages: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
        { role: 'user', content: 'add 1 and 1' },
      ],
    });
    expect(res.status).toBe(200);
    expect(llm.requests[0].body.messages[1].content).toBe(
      '\nPrevious conversation history:\nhuman: hello\nai: hi\n\ntask: add 1 and 1\n',
    );
  });

  it('with raise_tool_call_error: false a failing step and an unknown tool are evidence the solver reads', async () => {
    t = await apps.start(yaml({ raise_tool_call_error: false }));
    llm.script(
      reply.text(
        JSON.stringify([step('#E1', 'calculator__divide', [1, 0]), step('#E2', 'weather', 'Paris')]),
      ),
      reply.text('cannot'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'divide 1 by 0' });
    expect(res.json).toEqual({ value: 'cannot' });
    const solverUser = llm.requests[1].body.messages[1].content;
    expect(solverUser).toContain(
      'Result: Tool call failed after all retry attempts. Last error: Cannot divide by zero.\n\n',
    );
    expect(solverUser).toContain(
      'Result: There is no tool named weather. Tool must be one of calculator__add,',
    );
  });

  it('by default a step that still fails after its retries fails the run, and the solver is not asked', async () => {
    t = await apps.start(yaml());
    llm.script(reply.text(JSON.stringify([step('#E1', 'calculator__divide', [1, 0])])));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'divide 1 by 0' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(llm.requests).toHaveLength(1);
  });

  it('a plan that is not a JSON array of steps fails the run, as does a plan whose steps wait on each other', async () => {
    t = await apps.start(yaml());
    llm.script(reply.text('First I will add the numbers'));
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'x' })).status).toBeGreaterThanOrEqual(
      400,
    );
    llm.script(
      reply.text(
        JSON.stringify([step('#E1', 'calculator__add', '#E2'), step('#E2', 'calculator__add', '#E1')]),
      ),
    );
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'y' })).status).toBeGreaterThanOrEqual(
      400,
    );
    expect(llm.requests).toHaveLength(2);
  });

  it('refuses at start-up a planner prompt that cannot name the tools', () => {
    expect(() => configFrom(yaml({ planner_prompt: 'Plan {task}' }))).toThrow(
      /planner_prompt: The planner prompt must contain \{tools\}.*\n?.*planner_prompt: The planner prompt must contain \{tool_names\}/s,
    );
  });
});
