import { renderDeep, renderTemplate, renderValue, templateNames } from './template';

describe('renderTemplate', () => {
  it('substitutes {{input}} wherever it appears', () => {
    expect(renderTemplate('You said "{{input}}"; again: {{input}}.', { input: 'hi there' })).toBe(
      'You said "hi there"; again: hi there.',
    );
  });

  it('reads a field of a named value with {{name.label}}, spaces inside the braces allowed', () => {
    const vars = { city: { label: 'Lisbon', weather: { high_c: 24 } } };
    expect(renderTemplate('{{city.label}} / {{ city.label }} / {{city.weather.high_c}}°C', vars)).toBe(
      'Lisbon / Lisbon / 24°C',
    );
  });

  it('joins lists with ", "', () => {
    expect(renderTemplate('Try {{cities}}.', { cities: ['Lisbon', 'Porto', 'Madeira'] })).toBe(
      'Try Lisbon, Porto, Madeira.',
    );
    expect(renderTemplate('[{{empty}}]', { empty: [] })).toBe('[]');
  });

  it('renders an unknown name, an unknown field and null as empty text', () => {
    const vars = { input: 'x', city: { label: 'Lisbon' }, nothing: null };
    expect(renderTemplate('a{{missing}}b', vars)).toBe('ab');
    expect(renderTemplate('a{{city.population}}b', vars)).toBe('ab');
    expect(renderTemplate('a{{input.deeper}}b', vars)).toBe('ab');
    expect(renderTemplate('a{{nothing}}b', vars)).toBe('ab');
  });

  it('does not reach inherited properties', () => {
    expect(renderTemplate('[{{input.length}}][{{toString}}]', { input: 'abc' })).toBe('[][]');
  });

  it('renders numbers, booleans and objects as text', () => {
    expect(renderTemplate('{{n}} {{b}} {{o}}', { n: 42, b: false, o: { a: 1 } })).toBe('42 false {"a":1}');
  });

  it('leaves text without placeholders (and malformed ones) alone', () => {
    expect(renderTemplate('plain {text} {{ }} {{1abc}}', { input: 'x' })).toBe('plain {text} {{ }} {{1abc}}');
  });

  it('does not re-render placeholders found inside substituted values', () => {
    expect(renderTemplate('{{input}}', { input: '{{secret}}', secret: 'leaked' })).toBe('{{secret}}');
  });
});

describe('templateNames', () => {
  it('lists the top-level names a template refers to', () => {
    expect(templateNames('{{input}} and {{ city.label }}, {{input}}')).toEqual(['input', 'city', 'input']);
    expect(templateNames('no placeholders')).toEqual([]);
  });
});

describe('renderValue', () => {
  it('renders nested lists flat, joined by ", "', () => {
    expect(renderValue(['a', ['b', 'c'], 3])).toBe('a, b, c, 3');
    expect(renderValue(undefined)).toBe('');
  });
});

describe('renderDeep', () => {
  it('renders every string inside a JSON-like value and keeps other values', () => {
    const value = {
      query: '{{input}}',
      list: ['{{input}}!', 7, null],
      nested: { ok: true, text: 'q={{input}}' },
    };
    expect(renderDeep(value, { input: 'hi' })).toEqual({
      query: 'hi',
      list: ['hi!', 7, null],
      nested: { ok: true, text: 'q=hi' },
    });
    expect(value.query).toBe('{{input}}');
  });
});
