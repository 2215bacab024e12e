import type { OutboundPolicy } from '../../../core/outbound/outbound-policy';
import { outboundRequest } from '../../../core/outbound/outbound-request';
import { redactUrl } from '../../../core/outbound/redact-url';

/** Web search tools identify themselves: Wikipedia's API policy asks every client for a User-Agent. */
export const USER_AGENT = 'Interlude (NeMo Agent Toolkit compatible tools)';

/**
 * One call to a web API that answers JSON, under the outbound policy and the run's cancellation. A
 * status other than 2xx or a body that is not JSON is an error naming the service (the URL redacted),
 * which reaches the model as the tool's error.
 */
export async function webJson(
  service: string,
  outbound: OutboundPolicy,
  url: URL,
  signal: AbortSignal,
  request: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {},
): Promise<unknown> {
  const headers: Record<string, string> = {
    'User-Agent': USER_AGENT,
    Accept: 'application/json',
    ...request.headers,
  };
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await outboundRequest(outbound, url, {
    method: request.method ?? 'GET',
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    signal,
    overflow: 'fail',
  });
  const text = response.body.toString('utf8');
  if (response.status < 200 || response.status >= 300) {
    throw new Error(`${service} answered ${response.status} for ${redactUrl(url)}: ${text.slice(0, 300)}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${service} answered something that is not JSON for ${redactUrl(url)}`);
  }
}
