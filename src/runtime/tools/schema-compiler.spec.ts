import { growthOver4x, LINEAR } from '../../../test/utils/timing';
import { checkedArguments, schemaProblem } from './json-schema';
import { errorOf, problemAt } from '../../../test/utils/config-helpers';

const withPattern = (pattern: string) => ({ type: 'object', properties: { s: { type: 'string', pattern } } });

describe('schema patterns', () => {
  it.each([
    ['^[a-z]+$', 'abc', 'ab1'],
    ['^\\d{3}-\\d{4}$', '555-0100', '5550100'],
    ['^[\\w.+-]+@example\\.com$', 'ada.l+x@example.com', 'ada@example.org'],
    ['^\\p{L}+$', 'héllo', 'h3llo'],
    ['^.$', '😀', '😀😀'],
    ['^(?<year>\\d{4})/\\d{2}$', '2026/11', '26/11'],
    ['b', 'abc', 'xyz'],
  ])('%s matches as in JavaScript (%j fits, %j does not)', (pattern, good, bad) => {
    expect(new RegExp(pattern, 'u').test(good) && !new RegExp(pattern, 'u').test(bad)).toBe(true);
    expect(checkedArguments(withPattern(pattern), { s: good })).toEqual({ s: good });
    expect(() => checkedArguments(withPattern(pattern), { s: bad })).toThrow(
      `Invalid arguments: s must match pattern "${pattern}"`,
    );
  });

  it('keeps each schema to its own pattern', () => {
    expect(checkedArguments(withPattern('^a+$'), { s: 'aa' })).toEqual({ s: 'aa' });
    expect(checkedArguments(withPattern('^b+$'), { s: 'bb' })).toEqual({ s: 'bb' });
    expect(() => checkedArguments(withPattern('^b+$'), { s: 'aa' })).toThrow('must match pattern "^b+$"');
  });

  it.each([
    ['nested quantifiers', '^(a+)+$', (n: number) => `${'a'.repeat(n)}!`],
    ['a star of words', '^([a-z]+)*$', (n: number) => `${'a'.repeat(n)}!`],
    ['adjacent overlapping stars', '^a*a*b$', (n: number) => 'a'.repeat(n)],
  ])('checks a hostile string against %s in time linear in its length', (_what, pattern, text) => {
    const schema = withPattern(pattern);
    const check = (s: string) => expect(() => checkedArguments(schema, { s })).toThrow('must match pattern');
    check(text(40));
    expect(growthOver4x((n) => text(2_000 * n), check)).toBeLessThan(LINEAR);
  });

  it('checks patternProperties keys and propertyNames with the same engine', () => {
    const schema = {
      type: 'object',
      patternProperties: { '^(x+)+$': { type: 'number' } },
      propertyNames: { pattern: '^(x+)+y?$' },
    };
    const key = `${'x'.repeat(40)}!`;
    expect(() => checkedArguments(schema, { [key]: 1 })).toThrow('must match pattern "^(x+)+y?$"');
    expect(() => checkedArguments(schema, { xxx: 'one' })).toThrow('must be number');
  });

  it.each([
    ['a backreference', '^(a)\\1$'],
    ['a lookahead', '^(?=a)\\w+$'],
    ['a lookbehind', '(?<=a)b'],
    ['a syntax error', '[a-'],
  ])('refuses a schema whose pattern has %s, naming the pattern and why', (_what, pattern) => {
    expect(schemaProblem(withPattern(pattern))).toMatch(
      `pattern ${JSON.stringify(pattern)} is not supported (error parsing regexp: `,
    );
    expect(schemaProblem(withPattern(pattern))).toMatch('matched by RE2, in linear time');
  });
});

describe('uniqueItems', () => {
  const unique = { type: 'object', properties: { list: { type: 'array', uniqueItems: true } } };

  it('names the first two equal items, whatever the order of their keys', () => {
    expect(checkedArguments(unique, { list: [{ a: 1, b: [2] }, 'x', 1, '1'] })).toBeDefined();
    expect(() => checkedArguments(unique, { list: [{ a: 1, b: [2] }, 'x', { b: [2], a: 1 }] })).toThrow(
      'Invalid arguments: list must NOT have duplicate items (items ## 0 and 2 are identical)',
    );
  });

  it('checks a long list of distinct objects in time linear in its length', () => {
    const list = (n: number) => ({ list: Array.from({ length: n }, (_, i) => ({ id: i })) });
    expect(
      growthOver4x(
        (n) => list(250 * n),
        (args) => checkedArguments(unique, args),
      ),
    ).toBeLessThan(LINEAR);
  });
});

describe("an operator's schema", () => {
  it('with a pattern RE2 cannot compile stops the config, naming the tool and the field', () => {
    const err = errorOf(`
functions:
  post:
    _type: http_request
    url: https://api.example.com/orders
    method: POST
    body_schema: { type: object, properties: { s: { type: string, pattern: '^(?!admin)\\w+$' } } }
workflow:
  _type: echo
`);
    expect(problemAt(err, 'functions.post.body_schema').message).toMatch(
      'not a valid JSON Schema: pattern "^(?!admin)\\\\w+$" is not supported',
    );
  });
});
