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

describe('reading adversarial replies in linear time', () => {
  const spaces = ' '.repeat(100_000);
  const fastEnough = (run: () => unknown) => {
    const started = performance.now();
    run();
    return performance.now() - started;
  };

  it.each([
    ['a code fence followed by spaces', `Action: calculator\nAction Input: \`\`\`${spaces}x`],
    [
      'a fence closed after the spaces',
      `Action: calculator\nAction Input: \`\`\`json${spaces}1${spaces}\`\`\``,
    ],
    ['many Action labels on one line', `${'Action:'.repeat(15_000)}\n${spaces}`],
    ['many Action lines without input', 'Action: a\n'.repeat(10_000) + spaces],
    ['Observation words without a colon', `Action: a\nAction Input: ${'\n Observation'.repeat(8_000)}`],
    ['blank lines after the input', `Action: a\nAction Input: 1${' \n'.repeat(50_000)}y`],
    ['an Action label followed by spaces', `Action${spaces}`],
  ])('parses %s (100k characters) in well under 100 ms', (_what, reply) => {
    expect(fastEnough(() => parseReAct(reply))).toBeLessThan(100);
  });

  it('still reads the fenced input after 100k spaces', () => {
    const reply = `Action: calculator\nAction Input: \`\`\`json${spaces}{"expression": "1"}${spaces}\`\`\``;
    expect(parseReAct(reply)).toEqual({ kind: 'action', tool: 'calculator', input: '{"expression": "1"}' });
  });

  it('streams a final answer of 100k one-character pieces in well under 100 ms', () => {
    let out = 0;
    const stream = new FinalAnswerStream((t) => (out += t.length));
    const took = fastEnough(() => {
      stream.push('Final Answer:');
      for (let i = 0; i < 100_000; i++) stream.push(i % 2 ? ' ' : 'a');
    });
    expect(took).toBeLessThan(100);
    expect(out).toBe(99_999);
  });

  it('streams 100k pieces before the marker in well under 100 ms', () => {
    const stream = new FinalAnswerStream(() => undefined);
    expect(
      fastEnough(() => {
        for (let i = 0; i < 100_000; i++) stream.push('Final Answer'.slice(i % 12, (i % 12) + 1));
      }),
    ).toBeLessThan(100);
  });
});
