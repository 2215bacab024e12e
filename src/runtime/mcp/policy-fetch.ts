import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import { OutboundError, type OutboundPolicy } from '../../core/outbound/outbound-policy';
import { redactUrl } from '../../core/outbound/redact-url';

/** A request that failed before its connection was made: the server cannot have seen it. */
export class RequestNotSent extends OutboundError {
  constructor(message: string) {
    super(message);
    this.name = 'RequestNotSent';
  }
}

/**
 * A `fetch` for the MCP SDK's HTTP transports that keeps to `general.outbound`: the address is checked
 * at connect time (after DNS), redirects are not followed (the SDK then reports the status), and each
 * answer is cut at `max_response_bytes`. Bodies stream, since an MCP answer may be a long SSE stream.
 */
export function policyFetch(policy: OutboundPolicy): typeof fetch {
  return (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    policy.checkUrl(url);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, key) => (headers[key] = value));
    // The SDK's OAuth requests send forms (URLSearchParams), its transports JSON strings.
    const form = init.body instanceof URLSearchParams;
    const body = typeof init.body === 'string' || form ? String(init.body) : undefined;
    if (form && !headers['content-type']) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const client = url.protocol === 'https:' ? https : http;
    const maxBytes = policy.settings.max_response_bytes;
    return new Promise<Response>((resolve, reject) => {
      const req = client.request(
        url,
        {
          method: init.method ?? 'GET',
          headers,
          signal: init.signal ?? undefined,
          agent: false,
          lookup: policy.lookupFor(url.hostname),
          timeout: policy.settings.timeout_seconds * 1000,
        },
        (res) => {
          // An answer streams for as long as the tool runs: only the wait for its headers is bounded here.
          req.setTimeout(0);
          let size = 0;
          const limited = Readable.from(
            (async function* () {
              for await (const chunk of res as AsyncIterable<Buffer>) {
                size += chunk.length;
                if (size > maxBytes) {
                  res.destroy();
                  throw new OutboundError(`${redactUrl(url)} answered more than ${maxBytes} bytes`);
                }
                yield chunk;
              }
            })(),
          );
          const status = res.statusCode ?? 502;
          const empty = status === 204 || status === 304 || init.method === 'HEAD';
          const responseHeaders = new Headers();
          for (const [key, value] of Object.entries(res.headers)) {
            for (const v of [value ?? []].flat()) responseHeaders.append(key, v);
          }
          resolve(
            new Response(empty ? null : (Readable.toWeb(limited) as ReadableStream<Uint8Array>), {
              status,
              statusText: res.statusMessage,
              headers: responseHeaders,
            }),
          );
        },
      );
      let connected = false;
      req.on('socket', (socket) => socket.once('connect', () => (connected = true)));
      // No answer at all (not even headers) within the outbound timeout: give up rather than hang.
      req.on('timeout', () =>
        req.destroy(
          new OutboundError(`${redactUrl(url)}: no answer within ${policy.settings.timeout_seconds}s`),
        ),
      );
      req.on('error', (err: Error) =>
        reject(
          err instanceof OutboundError || err.name === 'AbortError'
            ? err
            : connected
              ? new OutboundError(`${redactUrl(url)}: ${err.message}`)
              : new RequestNotSent(`${redactUrl(url)}: ${err.message}`),
        ),
      );
      req.end(body);
    });
  };
}
