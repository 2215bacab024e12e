/**
 * Splits text into word-sized chunks whose concatenation is exactly the input: each chunk is a word
 * with the whitespace after it (leading whitespace is its own chunk). OpenAI clients join deltas.
 */
export function wordChunks(text: string, wordsPerChunk = 1): string[] {
  const words = text.match(/^\s+|\S+\s*/g) ?? [];
  if (wordsPerChunk <= 1) return words;
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk)
    chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  return chunks;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason as Error);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
