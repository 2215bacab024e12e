import type { Chunk } from '../utils/chat';
import { FakeLlm, reply } from '../utils/fake-llm';
import { agentYaml, CALCULATOR, appWithFakeLlm } from '../utils/fake-llm-config';
import { dataOf, postJson, postStream } from '../utils/sse';
import type { TestApp } from '../utils/test-app';

const FUNCTIONS = { ...CALCULATOR, current_datetime: { _type: 'current_datetime' } };
const AGENT = { _type: 'react_agent', tool_names: ['calculator', 'current_datetime'] };
const ACTION = 'Thought: I need to multiply.\nAction: calculator\nAction Input: {"expression": "6 * 7"}';
const FINAL = 'Thought: I now know the final answer\nFinal Answer: 6 times 7 is 42.';

describe('react_agent', () => {
  let llm: FakeLlm;
  let t: TestApp;
  appWithFakeLlm(
    (llm) => agentYaml(llm, AGENT, FUNCTIONS),
    (l, app) => {
      llm = l;
      t = app;
    },
  );

  it('runs the Action it reads, shows the model the Observation, and answers with the Final Answer', async () => {
    llm.script(reply.text(ACTION), reply.text(FINAL));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'What is 6 times 7?' });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ value: '6 times 7 is 42.' });

    const [first, second] = llm.requests.map((r) => r.body);
    expect(first.tools).toBeUndefined();
    expect(first.stop).toEqual(['Observation:']);
    const system = first.messages[0];
    expect(system.role).toBe('system');
    expect(system.content).toContain('calculator: Evaluates an arithmetic expression');
    expect(system.content).toContain('current_datetime: Returns the current date and time');
    expect(system.content).toContain('one of [calculator, current_datetime]');
    expect(second.messages.slice(1)).toEqual([
      { role: 'user', content: 'What is 6 times 7?' },
      { role: 'assistant', content: ACTION },
      { role: 'user', content: 'Observation: 42' },
    ]);
  });

  it('takes a plain-text Action Input for a tool with one argument', async () => {
    llm.script(reply.text('Action: calculator\nAction Input: 2 ^ 10'), reply.text('Final Answer: 1024'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: '2^10?' });
    expect(res.json).toEqual({ value: '1024' });
    expect(llm.lastMessage(1)).toEqual({ role: 'user', content: 'Observation: 1024' });
  });

  it('recovers from one malformed reply: the model is told what is wrong and answers again', async () => {
    llm.script(reply.text('I am quite sure it is 42.'), reply.text('Final Answer: 42'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: '6 * 7?' });
    expect(res.json).toEqual({ value: '42' });
    expect(llm.requests[1].body.messages.slice(-2)).toEqual([
      { role: 'assistant', content: 'I am quite sure it is 42.' },
      {
        role: 'user',
        content:
          'Observation: Invalid format: no "Action:" and no "Final Answer:" line. Reply with "Action:" and ' +
          '"Action Input:" lines, or with a "Final Answer:" line.',
      },
    ]);
  });

  it('fails once the model gets the format wrong more than max_retries times in a row', async () => {
    llm.script(reply.text('It is 42.'), reply.text('Still 42.'));
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: '6 * 7?' });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'workflow_error',
      message:
        'Agent "workflow" could not read the reply of model "fake-model" after 1 retry (max_retries): ' +
        'no "Action:" and no "Final Answer:" line. The reply: Still 42.',
      details: 'ReActParseError',
    });
  });

  it('/v1/chat/stream streams only the Final Answer, token by token; thoughts stay in the steps', async () => {
    llm.script(reply.text(ACTION), reply.text(FINAL));
    const res = await postStream(`${t.url}/v1/chat/stream`, {
      messages: [{ role: 'user', content: '6 * 7?' }],
    });
    const contents = (dataOf(res) as Chunk[]).flatMap((c) =>
      c.choices[0].delta.content ? [c.choices[0].delta.content] : [],
    );
    expect(contents).toEqual(['6', ' times', ' 7', ' is', ' 42.']);
    expect(res.text).toContain('Thought: I need to multiply.');
  });

  it('reads a chat history with tool calls as Actions and Observations', async () => {
    llm.script(reply.text('Final Answer: 84'));
    const call = {
      id: 'c1',
      type: 'function',
      function: { name: 'calculator', arguments: '{"expression":"6*7"}' },
    };
    const res = await postJson(`${t.url}/v1/chat`, {
      messages: [
        { role: 'user', content: '6*7?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'c1', content: '42' },
        { role: 'assistant', content: '42' },
        { role: 'user', content: 'Twice that?' },
      ],
    });
    expect(res.json).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: '84' } }] });
    expect(llm.requests[0].body.messages.slice(1)).toEqual([
      { role: 'user', content: '6*7?' },
      { role: 'assistant', content: 'Action: calculator\nAction Input: {"expression":"6*7"}' },
      { role: 'user', content: 'Observation: 42' },
      { role: 'assistant', content: '42' },
      { role: 'user', content: 'Twice that?' },
    ]);
  });
});
