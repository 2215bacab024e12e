import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, CALCULATOR } from '../utils/fake-llm-config';
import { postJson } from '../utils/sse';
import { startApp } from '../utils/test-app';

/** A tool name the model makes up, 100,000 characters long: the model is told so in a few hundred. */
const MADE_UP = 'x'.repeat(100_000);
const TOLD = `Error: there is no tool named "${'x'.repeat(100)}… (100000 characters)". Available tools: calculator.`;

describe('an agent told about a tool the model made up quotes only the start of its name', () => {
  let llm: FakeLlm;
  beforeAll(async () => (llm = await FakeLlm.start()));
  afterEach(() => llm.reset());
  afterAll(() => llm.close());

  const run = async (type: string) => {
    const t = await startApp(agentYaml(llm, { _type: type, tool_names: ['calculator'] }, CALCULATOR));
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'go' });
      expect(res.json).toEqual({ value: 'done' });
    } finally {
      await t.close();
    }
  };

  it('tool_calling_agent', async () => {
    llm.script(reply.tools([{ name: MADE_UP, arguments: {} }]), reply.text('done'));
    await run('tool_calling_agent');
    expect(llm.lastMessage(1)).toMatchObject({ role: 'tool', content: TOLD });
  });

  it('react_agent', async () => {
    llm.script(reply.text(`Action: ${MADE_UP}\nAction Input: {}`), reply.text('Final Answer: done'));
    await run('react_agent');
    expect(llm.lastMessage(1)).toEqual({ role: 'user', content: `Observation: ${TOLD}` });
  });
});
