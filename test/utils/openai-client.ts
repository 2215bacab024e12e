import OpenAI from 'openai';
import type { StreamResult } from './sse';
import { dataOf } from './sse';
import type { Chunk } from './chat';

/** An SDK client for the test server that counts the HTTP requests it makes. */
export function client(t: { url: string }, options: { maxRetries?: number } = {}) {
  const calls = { count: 0 };
  const sdk = new OpenAI({
    baseURL: `${t.url}/v1`,
    apiKey: 'not-needed',
    ...options,
    fetch: (input: string | URL | Request, init?: RequestInit) => {
      calls.count++;
      return fetch(input, init);
    },
  });
  return { sdk, calls };
}

/** Checks the raw OpenAI stream framing and returns the chunks' joined delta text. */
export function rawStreamText(res: StreamResult): string {
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
  expect(res.lines[res.lines.length - 1]).toBe('data: [DONE]');
  expect(res.lines.filter((l) => l === 'data: [DONE]')).toHaveLength(1);
  const chunks = dataOf(res) as Chunk[];
  for (const c of chunks) {
    expect(c).toMatchObject({
      id: chunks[0].id,
      object: 'chat.completion.chunk',
      created: chunks[0].created,
    });
    expect(c.model).toBe(chunks[0].model);
  }
  expect(Number.isInteger(chunks[0].created)).toBe(true);
  expect(chunks[0].choices[0].delta.role).toBe('assistant');
  expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
  return chunks.map((c) => c.choices[0].delta.content ?? '').join('');
}
