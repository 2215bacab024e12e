import { FinalAnswerStream, parseReAct, reactMessage } from './react-format';

describe('reading a ReAct reply', () => {
  it('reads an action and its input, up to an Observation the model wrote itself', () => {
    const reply =
      'Thought: I need the sum\nAction: calculator\nAction Input: {"expression": "2+2"}\nObservation: 4';
    expect(parseReAct(reply)).toEqual({ kind: 'action', tool: 'calculator', input: '{"expression": "2+2"}' });
  });

  it('takes the input out of a ```json fence', () => {
    const reply = 'Action: calculator\nAction Input: ```json\n{"expression": "1"}\n```';
    expect(parseReAct(reply)).toEqual({ kind: 'action', tool: 'calculator', input: '{"expression": "1"}' });
  });

  it('reads the final answer, trimmed', () => {
    expect(parseReAct('Thought: I now know\nFinal Answer:  It is 4. \n')).toEqual({
      kind: 'final',
      answer: 'It is 4.',
    });
  });

  it.each([
    ['no action and no answer', 'I think it is 4', /no "Action:" and no "Final Answer:"/],
    ['an action without input', 'Thought: x\nAction: calculator', /without an "Action Input:"/],
    ['both an action and an answer', 'Action: calculator\nAction Input: 1\nFinal Answer: 4', /both/],
  ])('says what is wrong with %s', (_what, reply, problem) => {
    const step = parseReAct(reply);
    expect(step.kind).toBe('invalid');
    expect((step as { problem: string }).problem).toMatch(problem);
  });

  it('writes tool calls and tool results of a chat history as Action and Observation text', () => {
    const call = {
      id: 'c1',
      type: 'function',
      function: { name: 'calculator', arguments: '{"expression":"1+1"}' },
    };
    expect(reactMessage({ role: 'assistant', content: null, tool_calls: [call] })).toEqual({
      role: 'assistant',
      content: 'Action: calculator\nAction Input: {"expression":"1+1"}',
    });
    expect(reactMessage({ role: 'tool', content: '2', tool_call_id: 'c1' })).toEqual({
      role: 'user',
      content: 'Observation: 2',
    });
  });
});

describe('streaming a ReAct final answer', () => {
  function run(pieces: string[]): string[] {
    const out: string[] = [];
    const stream = new FinalAnswerStream((t) => out.push(t));
    for (const p of pieces) stream.push(p);
    return out;
  }

  it('passes nothing before "Final Answer:", then each piece as it comes', () => {
    expect(run(['Thought: done\nFinal', ' Answer:', ' It', ' is', ' 4.'])).toEqual(['It', ' is', ' 4.']);
  });

  it('passes nothing for a reply that calls a tool', () => {
    expect(run(['Thought: x\n', 'Action: calculator\n', 'Action Input: 1'])).toEqual([]);
  });

  it('drops white space at the start and at the end', () => {
    expect(run(['Final Answer:', ' ', '\n', 'Yes', ' ', '.', '\n'])).toEqual(['Yes', ' .']);
  });
});
