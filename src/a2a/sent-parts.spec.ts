import { sentPartsProblem } from './sent-parts';

const raw = (value: unknown) => sentPartsProblem([{ raw: value, mediaType: 'text/plain' }]);

describe('sentPartsProblem: what the SDK would misread in parts as sent', () => {
  it.each(['', 'YQ==', 'YQ', 'aGk=', 'aGk', 'aGVsbG8gd29ybGQ=', '-_-_', '+/+/'])(
    'takes %j as base64 (standard or URL-safe, padded or not)',
    (text) => expect(raw(text)).toBeUndefined(),
  );

  it.each(['a', 'YQ=', 'aGk==', '====', 'a===', 'YQ==YQ==', 'aGk=\n', 'aGVs bG8=', 'aGVsbG8*'])(
    'refuses %j as base64',
    (text) => expect(raw(text)).toBe('Part 0: raw is not a base64 string'),
  );

  it('names the first part with a problem, and the field', () => {
    expect(sentPartsProblem([{ text: 'a' }, { text: 'b', filename: 7 }, null])).toBe(
      'Part 1: filename is not a string',
    );
    expect(sentPartsProblem([{ text: 'a' }, null])).toBe('Part 1 is not an object');
    expect(sentPartsProblem([['a']])).toBe('Part 0 is not an object');
    expect(sentPartsProblem([{ media_type: {} }])).toBe('Part 0: media_type is not a string');
  });

  it('leaves null fields, data of any shape and a missing list alone', () => {
    expect(
      sentPartsProblem([{ text: 'a', filename: null, raw: null }, { data: [1, { b: 2 }] }]),
    ).toBeUndefined();
    expect(sentPartsProblem(undefined)).toBeUndefined();
  });
});
