import { stringify } from 'yaml';
import { FakeLlm, reply } from '../utils/fake-llm';
import { appPerTestWithFakeLlm } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

/** NAT's router_agent: its LLM names one branch, and that branch answers the request. */
describe('router_agent (NAT control flow)', () => {
  let llm: FakeLlm;
  let t: TestApp | undefined;
  const apps = appPerTestWithFakeLlm((model) => (llm = model));

  const yaml = (workflow: Record<string, unknown> = {}) =>
    stringify({
      llms: {
        model: { _type: 'openai', base_url: llm.url, model_name: 'fake', api_key: 'k', max_retries: 0 },
      },
      functions: {
        fruit_advisor: {
          _type: 'tool_calling_agent',
          llm_name: 'model',
          tool_names: [],
          description: 'Advises on fruit',
        },
        city_advisor: { _type: 'code_generation', llm_name: 'model', description: 'Advises on cities' },
      },
      workflow: {
        _type: 'router_agent',
        llm_name: 'model',
        branches: ['fruit_advisor', 'city_advisor'],
        detailed_logs: true,
        ...workflow,
      },
    });

  it("asks with NAT's prompts, runs the branch the answer names and answers with the branch's answer", async () => {
    t = await apps.start(yaml());
    llm.script(reply.text('City_Advisor'), reply.text('Visit Paris'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'Where should I travel?' });
    expect(res.json).toEqual({ value: 'Visit Paris' });
    const [system, user] = llm.requests[0].body.messages;
    expect(system.role).toBe('system');
    expect(system.content).toContain(
      'Available branches:\nfruit_advisor: Advises on fruit\ncity_advisor: Advises on cities\n',
    );
    expect(system.content).toContain('from: [fruit_advisor,city_advisor]');
    expect(user).toEqual({
      role: 'user',
      content:
        '\nPrevious conversation history:\n\n\nTo respond to the request: Where should I travel?, which branch should be chosen?\n\nRespond with only the branch name.',
    });
    // The branch (code_generation takes {query}) gets the request itself.
    expect(llm.requests[1].body.messages.at(-1)).toEqual({
      role: 'user',
      content: '\nWhere should I travel?\n',
    });
  });

  it('asks again when the answer names no branch, and after max_router_retries answers with the failure', async () => {
    t = await apps.start(yaml({ max_router_retries: 2 }));
    llm.script(reply.text('no idea'), reply.text('fruit_advisor'), reply.text('Apples'));
    expect((await postJson(`${t.url}/v1/workflow`, { input_message: 'snack?' })).json).toEqual({
      value: 'Apples',
    });
    llm.reset();
    llm.script(reply.text('hmm'), reply.text('still unsure'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'snack?' });
    expect(res.json).toEqual({
      value: 'Router agent failed with exception: Router Agent failed to choose a branch',
    });
    expect(llm.requests).toHaveLength(2);
  });
});
