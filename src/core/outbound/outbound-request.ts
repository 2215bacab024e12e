import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { OutboundError, type OutboundPolicy } from './outbound-policy';
import { redactUrl } from './redact-url';

export interface OutboundRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The caller's cancellation (a run's signal); its reason is what the call then rejects with. */
  signal?: AbortSignal;
  /** Defaults to the policy's `max_response_bytes`. */
  maxBytes?: number;
  /** Defaults to the policy's `timeout_seconds`. */
  timeoutSeconds?: number;
  /** Past `maxBytes`: keep the start (`truncated: true`) or fail. */
  overflow?: 'truncate' | 'fail';
  /** Redirects to the same origin followed (a redirect elsewhere is returned as it is). */
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  truncated: boolean;
  /** Where a redirect to another origin pointed (redacted): it was not followed. */
  redirectNotFollowed?: string;
  /** The URL that answered. */
  url: URL;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * One HTTP request under the outbound policy: the destination is checked at connect time (after DNS),
 * the answer is read up to a size limit and within a time limit. Redirects are followed only within the
 * same origin, so configured headers never reach another host.
 */
export async function outboundRequest(
  policy: OutboundPolicy,
  url: string | URL,
  request: OutboundRequest = {},
): Promise<OutboundResponse> {
  const timeoutSeconds = request.timeoutSeconds ?? policy.settings.timeout_seconds;
  const deadline = AbortSignal.timeout(timeoutSeconds * 1000);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  let target = new URL(url);
  let method = request.method ?? 'GET';
  let body = request.body;
  for (let hop = 0; ; hop++) {
    const response = await once(policy, target, { ...request, method, body }, signal, () => {
      if (request.signal?.aborted) return request.signal.reason as Error;
      return new OutboundError(`${method} ${redactUrl(target)}: no answer within ${timeoutSeconds}s`);
    });
    const location = response.headers.location;
    if (!REDIRECTS.has(response.status) || !location || hop >= (request.maxRedirects ?? 5)) return response;
    const next = new URL(location, target);
    if (next.origin !== target.origin) return { ...response, redirectNotFollowed: redactUrl(next) };
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
    }
    target = next;
  }
}

function once(
  policy: OutboundPolicy,
  url: URL,
  request: OutboundRequest & { method: string },
  signal: AbortSignal,
  abortError: () => Error,
): Promise<OutboundResponse> {
  policy.checkUrl(url);
  const maxBytes = request.maxBytes ?? policy.settings.max_response_bytes;
  const client = url.protocol === 'https:' ? https : http;
  const headers = { ...request.headers };
  if (request.body !== undefined) headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    const fail = (err: Error) => reject(signal.aborted ? abortError() : err);
    const req = client.request(
      url,
      // No shared agent: every connection goes through the policy's lookup.
      { method: request.method, headers, signal, agent: false, lookup: policy.lookupFor(url.hostname) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = (truncated: boolean) =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            truncated,
            url,
          });
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= maxBytes) return void chunks.push(chunk);
          res.destroy();
          if (request.overflow === 'fail') {
            return reject(
              new OutboundError(`${request.method} ${redactUrl(url)} answered more than ${maxBytes} bytes`),
            );
          }
          chunks.push(chunk.subarray(0, chunk.length - (size - maxBytes)));
          done(true);
        });
        res.on('end', () => done(false));
        res.on('error', fail);
      },
    );
    req.on('error', (err: Error) => {
      if (err instanceof OutboundError || signal.aborted) return fail(err);
      reject(new OutboundError(`${request.method} ${redactUrl(url)} failed: ${err.message}`));
    });
    req.end(request.body);
  });
}
