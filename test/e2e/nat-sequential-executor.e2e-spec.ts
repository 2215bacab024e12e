import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { stringify } from 'yaml';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** NAT's sequential_executor: each function is given the output of the one before; the last one answers. */
describe('sequential_executor (NAT control flow)', () => {
  let llm: FakeLlm;
  let t: TestApp | undefined;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const yaml = (workflow: Record<string, unknown>) =>
    stringify({
      llms: {
        model: { _type: 'openai', base_url: llm.url, model_name: 'fake', api_key: 'k', max_retries: 0 },
      },
      functions,
      workflow: { _type: 'sequential_executor', ...workflow },
    });
  const functions = {
    planner: { _type: 'tool_calling_agent', llm_name: 'model', tool_names: [], description: 'Plans' },
    coder: { _type: 'code_generation', llm_name: 'model' },
    fails: { _type: 'tool_calling_agent', llm_name: 'model', tool_names: [], description: 'Fails' },
  };

  it('hands the request to the first function, its answer to the next (as its one field), and answers with the last', async () => {
    t = await apps.start(yaml({ tool_list: ['planner', 'coder'], raise_type_incompatibility: false }));
    llm.script(
      reply.text('a function that adds two numbers'),
      reply.text('def add(a, b):\n    return a + b'),
    );
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'I need to add numbers' });
    expect(res.json).toEqual({ value: 'def add(a, b):\n    return a + b' });
    expect(llm.requests[0].body.messages.at(-1)).toEqual({ role: 'user', content: 'I need to add numbers' });
    // code_generation takes {query}: the planner's text is its query.
    expect(llm.requests[1].body.messages.at(-1)).toEqual({
      role: 'user',
      content: '\na function that adds two numbers\n',
    });
  });

  it('with return_error_on_exception a failing function ends the chain with its error as the answer', async () => {
    t = await apps.start(yaml({ tool_list: ['fails', 'coder'], return_error_on_exception: true }));
    llm.script(reply.error(400, 'bad request'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: expect.stringMatching(/^Error: fails failed: .*bad request/) });
    expect(llm.requests).toHaveLength(1);
  });

  it('without it, the failure fails the run', async () => {
    t = await apps.start(yaml({ tool_list: ['fails', 'coder'] }));
    llm.script(reply.error(400, 'bad request'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(llm.requests).toHaveLength(1);
  });
});
