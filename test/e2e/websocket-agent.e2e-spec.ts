import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml } from '../utils/fake-llm-config';
import { startApp, type TestApp } from '../utils/test-app';
import { reply as answer, userMessage, WsClient } from '../utils/ws-client';

const ASK = reply.tools([
  { name: 'ask_confirmation', arguments: { question: 'Compute 6*7?', target_tool: 'calculator' } },
]);
const CALC = reply.tools([{ name: 'calculator', arguments: { expression: '6*7' } }]);

describe('WebSocket gateway: an LLM agent (fake OpenAI-compatible model) asks before it acts', () => {
  let llm: FakeLlm;
  let t: TestApp;
  beforeAll(async () => {
    llm = await FakeLlm.start();
    const functions = {
      ask_confirmation: { _type: 'ask_confirmation' },
      calculator: { _type: 'calculator' },
    };
    t = await startApp(
      agentYaml(llm, { _type: 'tool_calling_agent', tool_names: Object.keys(functions) }, functions),
    );
  });
  afterEach(() => llm.reset());
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('ask_confirmation is a radio prompt on the socket; "yes" runs the tool and the answer streams token by token', async () => {
    llm.script(ASK, CALC, reply.text('The answer is 42.'));
    const ws = await WsClient.connect(t.url, { session: 'ana' });
    try {
      ws.send(userMessage('What is 6*7? Ask me first.', { id: 'u1', conversation_id: 'c-agent' }));
      const steps = await ws.until((m) => m.type === 'system_interaction_message');
      const prompt = steps[steps.length - 1];
      expect(prompt).toMatchObject({
        parent_id: 'u1',
        conversation_id: 'c-agent',
        content: {
          input_type: 'radio',
          text: 'Compute 6*7?',
          allow_free_text: true,
          allow_cancel: true,
          options: [
            expect.objectContaining({ id: 'yes' }),
            expect.objectContaining({ id: 'no' }),
            expect.objectContaining({ id: 'no_with_feedback' }),
          ],
        },
      });
      expect(steps.some((m) => m.type === 'system_intermediate_message')).toBe(true);
      ws.send(answer('yes', { parent_id: 'u1', conversation_id: 'c-agent' }));
      const rest = await ws.run();
      const tools = rest.filter((m) => m.type === 'system_intermediate_message').map((m) => m.content.name);
      expect(tools.some((name) => String(name).includes('calculator'))).toBe(true);
      const chunks = rest.filter((m) => m.type === 'system_response_message' && m.status === 'in_progress');
      expect(chunks.length).toBeGreaterThan(1);
      expect(chunks.map((m) => m.content.text).join('')).toBe('The answer is 42.');
      const calculator = JSON.parse(llm.lastMessage(2).content!) as unknown;
      expect(JSON.stringify(calculator)).toContain('42');
      expect(JSON.parse(llm.lastMessage(1).content!)).toMatchObject({
        selected_option_id: 'yes',
        confirmed: true,
      });
    } finally {
      ws.close();
    }
  });

  it('a free-text reply is no_with_feedback: the model reads the text', async () => {
    llm.script(ASK, reply.text('Understood, I will not.'));
    const ws = await WsClient.connect(t.url, { session: 'ana' });
    try {
      ws.send(userMessage('What is 6*7?', { schema_type: 'chat', conversation_id: 'c-agent-2' }));
      await ws.until((m) => m.type === 'system_interaction_message');
      ws.send(answer('Please do not compute anything', { conversation_id: 'c-agent-2' }));
      const rest = await ws.run();
      expect(rest.filter((m) => m.status === 'in_progress' && m.type === 'system_response_message')).toEqual([
        expect.objectContaining({ content: { text: 'Understood, I will not.' } }),
      ]);
      expect(JSON.parse(llm.lastMessage(1).content!)).toMatchObject({
        selected_option_id: 'no_with_feedback',
        free_text: 'Please do not compute anything',
        confirmed: false,
      });
    } finally {
      ws.close();
    }
  });
});
