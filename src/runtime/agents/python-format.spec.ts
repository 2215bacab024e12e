import { fillTemplate, pythonRepr, unknownNames } from './python-format';
import { withoutThinking } from './reasoning-agent';

describe("NAT's prompt templates and Python's repr", () => {
  it('fills known names, keeps {{ }} as one brace and leaves other braces as written', () => {
    expect(fillTemplate('Q: {input_text} {{json}} {other} {', { input_text: 'hi {tools}' })).toBe(
      'Q: hi {tools} {json} {other} {',
    );
  });

  it('names the placeholders a template uses that are not offered', () => {
    expect(
      unknownNames('{input_text} {reasoning_outptu} {{literal}}', ['input_text', 'reasoning_output']),
    ).toEqual(['reasoning_outptu']);
  });

  it('writes a message as Python prints its model_dump(), quotes chosen as Python does', () => {
    expect(pythonRepr({ content: "it's\n", role: 'user', tool_calls: null })).toBe(
      `{'content': "it's\\n", 'role': 'user', 'tool_calls': None}`,
    );
    expect(pythonRepr(`both ' and "`)).toBe(`'both \\' and "'`);
  });

  it('writes nested lists and dicts, and a value nested deeper than the call stack', () => {
    expect(pythonRepr({ a: [1, [true, null], {}], b: { c: 'x' }, d: [] })).toBe(
      "{'a': [1, [True, None], {}], 'b': {'c': 'x'}, 'd': []}",
    );
    const depth = 200_000;
    const deep = JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`) as unknown;
    expect(pythonRepr(deep)).toBe(`${'['.repeat(depth)}${']'.repeat(depth)}`);
  });

  it("cuts a reasoning model's <think> part, and only up to the first </think>", () => {
    expect(withoutThinking('<think>a</think>\n\nplan </think> b')).toBe('plan </think> b');
    expect(withoutThinking('no thinking')).toBe('no thinking');
  });
});
