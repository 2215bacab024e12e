import { formatDateTime } from './current-datetime.tool';
import { growthOver4x, LINEAR } from '../../../test/utils/timing';
import { argumentsFromText, checkedArguments } from './json-schema';

describe('tool arguments', () => {
  const schema = {
    type: 'object',
    properties: { expression: { type: 'string' } },
    required: ['expression'],
    additionalProperties: false,
  };

  it('names every mismatch for the model', () => {
    expect(() => checkedArguments(schema, { expr: 1 })).toThrow(
      `Invalid arguments: arguments must have required property 'expression'; arguments must NOT have additional properties ("expr")`,
    );
    expect(() => checkedArguments(schema, { expression: 2 })).toThrow('expression must be string');
  });

  it.each([
    ['{"expression": "1+1"}', { expression: '1+1' }],
    ["{'expression': '1+1'}", { expression: '1+1' }],
    ['1+1', { expression: '1+1' }],
    ['"1+1"', { expression: '1+1' }],
    ['None', {}],
    ['', {}],
  ])('reads the free text %j', (text, args) => {
    expect(argumentsFromText(text, schema)).toEqual(args);
  });

  it.each([
    ['email', 'not-an-email', 'ada@example.com'],
    ['uri', 'no scheme here', 'https://example.com/a'],
    ['date-time', 'yesterday', '2026-03-11T16:05:11Z'],
  ])('rejects a value that is not a %s, as any other mismatch', (format, bad, good) => {
    const withFormat = { type: 'object', properties: { value: { type: 'string', format } } };
    expect(() => checkedArguments(withFormat, { value: bad })).toThrow(
      `Invalid arguments: value must match format "${format}"`,
    );
    expect(checkedArguments(withFormat, { value: good })).toEqual({ value: good });
  });

  it.each<[string, (length: number) => string]>([
    ['an unclosed quote before spaces', (n) => `"${' '.repeat(n)}x`],
    ['only quotes', (n) => '"'.repeat(n)],
    ['an unclosed object of single quotes', (n) => `{'${"'".repeat(n)}`],
  ])('reads adversarial free text (%s) in time linear in its length', (_what, text) => {
    expect(
      growthOver4x(
        (n) => text(25_000 * n),
        (t) => argumentsFromText(t, schema),
      ),
    ).toBeLessThan(LINEAR);
  });

  it('needs JSON when the tool takes several arguments', () => {
    const two = { type: 'object', properties: { a: {}, b: {} } };
    expect(() => argumentsFromText('x', two)).toThrow('Arguments must be a JSON object with "a", "b"');
  });

  it('refuses free text that is JSON nested deeper than a body may be, rather than take it as a value', () => {
    const deep = `${'{"a":'.repeat(100)}1${'}'.repeat(100)}`;
    expect(() => argumentsFromText(deep, schema)).toThrow('Arguments are nested deeper than 64 levels');
  });
});

describe('current_datetime', () => {
  it('formats the time in the configured zone', () => {
    const date = new Date('2026-03-11T16:05:11Z');
    expect(formatDateTime(date, 'UTC')).toBe('2026-03-11 16:05:11');
    expect(formatDateTime(date, 'Asia/Tokyo')).toBe('2026-03-12 01:05:11');
  });
});
