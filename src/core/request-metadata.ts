/** What the workflow may know of the request that started it. */
export interface RequestMetadata {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  query: Record<string, unknown>;
  cookies: Record<string, string>;
  /** The caller's address (general.front_end.trust_proxy applied), when the face knows it. */
  clientAddress?: string;
  /** What the face hands the workflow beyond the request (AG-UI: `state`, `forwardedProps`, `context`). */
  extras?: Record<string, unknown>;
}

/**
 * Credentials are not kept at rest (a durable run's spec, a queued job): the identity they proved,
 * resolved when the request arrived, is. What runs later sees the request without them (a workflow
 * that forwards the caller's Authorization header has nothing to forward).
 */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

export function withoutCredentials(request: RequestMetadata): RequestMetadata {
  const headers: RequestMetadata['headers'] = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return { ...request, headers, cookies: {} };
}
