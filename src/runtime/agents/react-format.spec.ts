import { growthOver4x, LINEAR } from '../../../test/utils/timing';
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
  // Each reply at 25k and at 100k characters: 4× the text must take well under 10× as long.
  const spaces = (scale: number) => ' '.repeat(25_000 * scale);

  it.each<[string, (scale: 1 | 4) => string]>([
    ['a code fence followed by spaces', (n) => `Action: calculator\nAction Input: \`\`\`${spaces(n)}x`],
    [
      'a fence closed after the spaces',
      (n) => `Action: calculator\nAction Input: \`\`\`json${spaces(n)}1${spaces(n)}\`\`\``,
    ],
    ['many Action labels on one line', (n) => `${'Action:'.repeat(3_750 * n)}\n${spaces(n)}`],
    ['many Action lines without input', (n) => 'Action: a\n'.repeat(2_500 * n) + spaces(n)],
    [
      'Observation words without a colon',
      (n) => `Action: a\nAction Input: ${'\n Observation'.repeat(2_000 * n)}`,
    ],
    ['blank lines after the input', (n) => `Action: a\nAction Input: 1${' \n'.repeat(12_500 * n)}y`],
    ['an Action label followed by spaces', (n) => `Action${spaces(n)}`],
  ])('parses %s in time linear in its length', (_what, reply) => {
    expect(growthOver4x(reply, parseReAct)).toBeLessThan(LINEAR);
  });

  it('still reads the fenced input after 100k spaces', () => {
    const reply = `Action: calculator\nAction Input: \`\`\`json${spaces(4)}{"expression": "1"}${spaces(4)}\`\`\``;
    expect(parseReAct(reply)).toEqual({ kind: 'action', tool: 'calculator', input: '{"expression": "1"}' });
  });

  it('streams a final answer of one-character pieces in time linear in their number', () => {
    const answer = (pieces: number) => {
      let out = 0;
      const stream = new FinalAnswerStream((t) => (out += t.length));
      stream.push('Final Answer:');
      for (let i = 0; i < pieces; i++) stream.push(i % 2 ? ' ' : 'a');
      return out;
    };
    expect(growthOver4x((n) => 100_000 * n, answer)).toBeLessThan(LINEAR);
    expect(answer(100_000)).toBe(99_999);
  });

  it('streams pieces before the marker in time linear in their number', () => {
    const beforeMarker = (pieces: number) => {
      const stream = new FinalAnswerStream(() => undefined);
      for (let i = 0; i < pieces; i++) stream.push('Final Answer'.slice(i % 12, (i % 12) + 1));
    };
    expect(growthOver4x((n) => 100_000 * n, beforeMarker)).toBeLessThan(LINEAR);
  });
});
