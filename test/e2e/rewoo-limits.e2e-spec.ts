import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** A ReWOO plan is the model's: whatever it plans, the run stays within the agent's limits. */
describe('rewoo_agent with a hostile plan', () => {
  let llm: FakeLlm;
  let t: TestApp;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const start = async (workflow: Record<string, unknown> = {}) =>
    (t = await apps.start(
      stringify({
        llms: { m: { _type: 'openai', base_url: llm.url, model_name: 'fake', api_key: 'k', max_retries: 0 } },
        function_groups: { calculator: { _type: 'calculator' } },
        workflow: {
          _type: 'rewoo_agent',
          tool_names: ['calculator'],
          llm_name: 'm',
          tool_call_max_retries: 1,
          ...workflow,
        },
      }),
    ));
  const step = (placeholder: string, tool: string, toolInput: unknown) => ({
    plan: `Step ${placeholder}`,
    evidence: { placeholder, tool, tool_input: toolInput },
  });
  const plan = (...steps: unknown[]) => reply.text(JSON.stringify(steps));
  const ask = () => postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
  const failure = (message: string | RegExp) => ({
    code: 'workflow_error',
    message,
    details: 'ReWOOLimitExceeded',
  });

  it("quotes only the start of an unknown tool's name, in its evidence and in the solver's plan", async () => {
    await start({ raise_tool_call_error: false });
    const name = 'N'.repeat(100_000);
    llm.script(plan(step('#E1', name, 'x')), reply.text('no such tool'));
    const res = await ask();
    expect(res.json).toEqual({ value: 'no such tool' });
    const solver = llm.requests[1].body.messages[1].content!;
    expect(solver).toContain(`Result: There is no tool named ${'N'.repeat(100)}… (100000 characters).`);
    expect(solver.length).toBeLessThan(2_000);
  });

  it('a step whose input, evidence pasted in, passes max_tool_input_chars fails the run before the solver', async () => {
    await start();
    const longName = 'N'.repeat(20_000);
    llm.script(
      plan(step('#E1', longName, 'x'), step('#E2', 'calculator__add', { numbers: '#E1 '.repeat(1_000) })),
    );
    const res = await ask();
    expect(res.status).toBe(422);
    expect(res.json).toEqual(
      failure(
        'ReWOO agent "workflow": the input of step #E2 passes max_tool_input_chars (100000) once evidence fills it',
      ),
    );
    expect(llm.requests).toHaveLength(1);
  });

  it('a plan of more than max_plan_steps steps fails the run, and none of them runs', async () => {
    await start({ max_plan_steps: 3 });
    const steps = ['#E1', '#E2', '#E3', '#E4'].map((p) => step(p, 'calculator__add', [1, 1]));
    llm.script(plan(...steps));
    const res = await ask();
    expect(res.json).toEqual(
      failure('ReWOO agent "workflow": the plan has 4 steps, over max_plan_steps (3)'),
    );
    expect(llm.requests).toHaveLength(1);
  });

  it('a plan of 51 steps fails by default', async () => {
    await start();
    llm.script(plan(...Array.from({ length: 51 }, (_, i) => step(`#E${i + 1}`, 'calculator__add', [1, 1]))));
    const res = await ask();
    expect(res.json).toEqual(
      failure('ReWOO agent "workflow": the plan has 51 steps, over max_plan_steps (50)'),
    );
  });

  it('a tool input nested thousands deep, as JSON or as text, fails with the limit, not a stack overflow', async () => {
    await start();
    const deep = `${'['.repeat(10_000)}1${']'.repeat(10_000)}`;
    const [head, tail] = JSON.stringify([step('#E1', 'calculator__add', 0)]).split('"tool_input":0');
    llm.script(reply.text(`${head}"tool_input":${deep}${tail}`));
    expect((await ask()).json).toEqual(
      failure('ReWOO agent "workflow": the input of step #E1 nests lists and objects more than 64 deep'),
    );
    llm.script(plan(step('#E1', 'calculator__add', deep)));
    expect((await ask()).json).toEqual(
      failure('ReWOO agent "workflow": the input of step #E1 nests lists and objects more than 64 deep'),
    );
    expect(llm.requests).toHaveLength(2);
  });

  it("a solver's prompt past max_solver_prompt_chars fails the run instead of being sent", async () => {
    await start({ raise_tool_call_error: false });
    const long = 'a'.repeat(99_000);
    llm.script(plan(...['#E1', '#E2', '#E3', '#E4', '#E5', '#E6'].map((p) => step(p, 'search', long))));
    const res = await ask();
    expect(res.json).toEqual(
      failure(
        'ReWOO agent "workflow": the solver\'s prompt (the plan with its inputs and evidence) passes max_solver_prompt_chars (500000)',
      ),
    );
    expect(llm.requests).toHaveLength(1);
  });
});
