/** The most of one answer an LLM endpoint may send (as read, after decompression). */
export const MAX_ANSWER_BYTES = 32 * 1024 * 1024;

/**
 * The longest wait a `Retry-After` (or `retry-after-ms`) is followed for, as OpenAI's Python SDK does:
 * a longer one, or one that is no number of seconds or date, gets the SDK's own back-off (at most 8 s).
 * The SDK used here follows any wait, and its wait is not cut short when the call is.
 */
const MAX_RETRY_AFTER_MS = 60_000;

/** What a retry wait header asks for, in ms (undefined: no such header, or none that can be read). */
function asked(headers: Headers): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && !Number.isNaN(parseFloat(ms))) return parseFloat(ms);
  const after = headers.get('retry-after');
  if (after === null) return undefined;
  const seconds = parseFloat(after);
  if (!Number.isNaN(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : date - Date.now();
}

/** The headers without a retry wait that is not a reasonable one (undefined: they are fine as they are). */
function reasonable(headers: Headers): Headers | undefined {
  if (!headers.has('retry-after') && !headers.has('retry-after-ms')) return undefined;
  const wait = asked(headers);
  if (wait !== undefined && wait >= 0 && wait <= MAX_RETRY_AFTER_MS) return undefined;
  const kept = new Headers(headers);
  kept.delete('retry-after');
  kept.delete('retry-after-ms');
  return kept;
}

/** Thrown into an answer's body once it has sent more than `max` bytes. */
export class AnswerTooLarge extends Error {
  constructor(max: number) {
    super(`its answer was larger than ${max / (1024 * 1024)} MiB, the most one may be`);
    this.name = 'AnswerTooLarge';
  }
}

function capped(body: ReadableStream<Uint8Array>, max: number): ReadableStream<Uint8Array> {
  let read = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > max) controller.error(new AnswerTooLarge(max));
        else controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * How the SDK reaches an LLM endpoint: `send`, with each answer's body cut off past `maxBytes` (a 1 GiB
 * body, or a gzip one that inflates to it, would otherwise be read whole) and retry waits kept reasonable.
 */
export function guardedFetch(send: typeof fetch, maxBytes = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await send(input, init);
    const headers = reasonable(res.headers) ?? res.headers;
    const body = res.body ? capped(res.body, maxBytes) : null;
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}
