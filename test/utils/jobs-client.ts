import { eventually } from './test-app';
import { WAIT_MS } from './timing';

/** One HTTP answer, read as JSON. */
export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

export const ALICE = { cookie: 'nat-session=alice' };
export const BOB = { authorization: 'Bearer nvapi-bob' };

/** ISO 8601 in UTC with a `Z`, as every job timestamp is. */
export const ISO_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

async function call(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<JsonAnswer> {
  const res = await fetch(url, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The async job routes of a server at `base` (its workflow path: `/v1/workflow` or `/generate`). */
export function jobsAt(server: string, base = '/v1/workflow', headers: Record<string, string> = {}) {
  return {
    submit: (body: Record<string, unknown>) => call('POST', `${server}${base}/async`, body, headers),
    status: (jobId: string) =>
      call('GET', `${server}${base}/async/job/${encodeURIComponent(jobId)}`, undefined, headers),
    list: (query = '') => call('GET', `${server}${base}/async/jobs${query}`, undefined, headers),
    cancel: (jobId: string) =>
      call('DELETE', `${server}${base}/async/job/${encodeURIComponent(jobId)}`, undefined, headers),
    /** Polls until the job has `status` (or one of them). */
    until: (jobId: string, status: string | string[], timeoutMs = WAIT_MS) =>
      eventually(async () => {
        const res = await call(
          'GET',
          `${server}${base}/async/job/${encodeURIComponent(jobId)}`,
          undefined,
          headers,
        );
        const want = Array.isArray(status) ? status : [status];
        if (!want.includes(res.body.status as string)) {
          throw new Error(`job ${jobId} is ${String(res.body.status)}, waiting for ${want.join('/')}`);
        }
        return res.body;
      }, timeoutMs),
    post: (path: string, body: unknown) => call('POST', `${server}${path}`, body, headers),
    get: (path: string) => call('GET', `${server}${path}`, undefined, headers),
  };
}

export { call as jsonCall };
