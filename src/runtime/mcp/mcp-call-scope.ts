import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * One MCP request (a tool call, a page of a listing) as our `fetch` sees it. The SDK's HTTP transports
 * give every request the session's own abort signal only, so a request that timed out or was cancelled
 * left its answer's stream open until the server ended it; and an answer stream that broke (cut at
 * `max_response_bytes`) was only reported to the transport's `onerror`, the request waiting out its
 * timeout. The scope travels with the request into `fetch` (as `asCaller` does for the user).
 */
interface CallScope {
  /** Aborted when the request has ended: its HTTP request and answer stream are closed. */
  ended: AbortSignal;
  /** The answer's stream broke: the request fails at once with `err`. */
  fail(err: Error): void;
}

const scopes = new AsyncLocalStorage<CallScope>();

/**
 * Runs one SDK request (`run` gets the signal to hand the SDK: the caller's `signal`, or a broken
 * answer stream, cancels it, and the SDK sends `notifications/cancelled`). When it settles, however it
 * settles, its HTTP streams are closed.
 */
export async function inCallScope<T>(
  signal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ended = new AbortController();
  // Not the caller's signal itself: the SDK never removes its listener, and a run's signal outlives
  // the call (aborting it later would send a cancellation for a finished request).
  const cancel = new AbortController();
  const onAbort = () => cancel.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  let failed!: (err: Error) => void;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  failure.catch(() => undefined);
  const fail = (err: Error) => {
    failed(err);
    if (!cancel.signal.aborted) cancel.abort(err);
  };
  try {
    return await Promise.race([failure, scopes.run({ ended: ended.signal, fail }, () => run(cancel.signal))]);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    ended.abort();
  }
}

/**
 * A transport's `fetch`, wrapped: a JSON-RPC request sent inside a scope is aborted when its request
 * ends, and its answer stream breaking fails the request. Notifications (the SDK's
 * `notifications/cancelled`, sent as a request ends) and the session's own GET stream are left alone.
 */
export function scopedFetch(base: typeof fetch): typeof fetch {
  return async (input, init = {}) => {
    const scope = scopes.getStore();
    if (!scope || !isRequest(init.body)) return base(input, init);
    const signal = init.signal ? AbortSignal.any([init.signal, scope.ended]) : scope.ended;
    const answer = await base(input, { ...init, signal });
    if (!answer.body) return answer;
    const reader = answer.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) controller.close();
          else controller.enqueue(value);
        } catch (err) {
          if (!scope.ended.aborted) scope.fail(err as Error);
          controller.error(err);
        }
      },
      cancel: (reason) => reader.cancel(reason),
    });
    return new Response(body, {
      status: answer.status,
      statusText: answer.statusText,
      headers: answer.headers,
    });
  };
}

function isRequest(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    const message = JSON.parse(body) as { id?: unknown; method?: unknown };
    return message.id !== undefined && typeof message.method === 'string';
  } catch {
    return false;
  }
}
