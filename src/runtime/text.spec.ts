import { sleep, wordChunks } from './text';

describe('wordChunks', () => {
  it.each([
    'hello world',
    'hello  there, world ',
    '  leading and   inner spaces kept ',
    'trailing   ',
    'line one\nline two\n\ttabbed',
    'one',
    '   ',
    'naïve café — ünïcode 🚀 text',
  ])('chunks whose concatenation is exactly %j', (text) => {
    const chunks = wordChunks(text);
    expect(chunks.join('')).toBe(text);
    expect(chunks.every((c) => c.length > 0)).toBe(true);
  });

  it('makes each chunk a word with the whitespace after it; leading whitespace is its own chunk', () => {
    expect(wordChunks('  hello  there, world ')).toEqual(['  ', 'hello  ', 'there, ', 'world ']);
  });

  it('gives no chunks for the empty string', () => {
    expect(wordChunks('')).toEqual([]);
    expect(wordChunks('', 3)).toEqual([]);
  });

  it('groups words when asked, still concatenating to the input', () => {
    const text = ' a b  c d e ';
    expect(wordChunks(text, 2)).toEqual([' a ', 'b  c ', 'd e ']);
    expect(wordChunks(text, 2).join('')).toBe(text);
    expect(wordChunks(text, 100)).toEqual([text]);
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    const start = Date.now();
    await sleep(30);
    expect(Date.now() - start).toBeGreaterThanOrEqual(25);
  });

  it('rejects with the abort reason when the signal aborts mid-sleep', async () => {
    const controller = new AbortController();
    const pending = sleep(10_000, controller.signal);
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toThrow('stop');
  });

  it('rejects at once when the signal is already aborted', async () => {
    await expect(sleep(0, AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
  });
});
