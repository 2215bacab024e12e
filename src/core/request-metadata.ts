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
