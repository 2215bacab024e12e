import { fileDataProblem, filenameProblem, type FileLimits } from './files';

const LIMITS: FileLimits = { types: ['application/pdf', 'text/plain'], maxBytes: 6 };
const data = (type: string, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

describe('fileDataProblem', () => {
  it('accepts inline data of an accepted type up to the limit, whatever its bytes hold', () => {
    expect(fileDataProblem(data('application/pdf', Buffer.from('%PDF-1')), LIMITS)).toBeUndefined();
    expect(fileDataProblem(data('TEXT/PLAIN', Buffer.from([0, 1, 2])), LIMITS)).toBeUndefined();
  });

  it('refuses a URL, a type not accepted, too many bytes and data that is not base64', () => {
    expect(fileDataProblem('https://example.com/a.pdf', LIMITS)).toMatch(/^only inline files/);
    expect(fileDataProblem('file-abc123', LIMITS)).toMatch(/^only inline files/);
    expect(fileDataProblem(data('text/html', Buffer.from('<b>')), LIMITS)).toBe(
      'file type "text/html" is not accepted (accepted: application/pdf, text/plain)',
    );
    expect(fileDataProblem(data('text/plain', Buffer.alloc(7)), LIMITS)).toBe(
      'file is 7 bytes, over the limit of 6',
    );
    expect(fileDataProblem('data:text/plain;base64,AB=C', LIMITS)).toBe(
      'malformed data: URL: the data is not base64',
    );
    expect(fileDataProblem('data:text/plain,hello', LIMITS)).toMatch(/^malformed data: URL/);
  });
});

describe('filenameProblem', () => {
  it('refuses an empty name, one over 255 characters and one with control characters', () => {
    expect(filenameProblem('report (final).pdf')).toBeUndefined();
    expect(filenameProblem('x'.repeat(255))).toBeUndefined();
    expect(filenameProblem('')).toBe('the file name is empty');
    expect(filenameProblem('x'.repeat(256))).toMatch(/over the limit of 255/);
    for (const name of ['a\nb', 'a\u0000', 'a\u001b[31m', 'a\u009b', 'a\u2028b'])
      expect(filenameProblem(name)).toBe('the file name holds a control character');
  });
});
