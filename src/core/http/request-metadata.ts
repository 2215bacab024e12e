import type { Request } from 'express';
import { parse as parseCookies } from 'cookie';
import type { RequestMetadata } from '../../runtime/workflow-context';

/** The request as a workflow may see it: no body, no socket. */
export function requestMetadata(req: Request): RequestMetadata {
  const cookies: Record<string, string> = {};
  if (typeof req.headers.cookie === 'string') {
    for (const [k, v] of Object.entries(parseCookies(req.headers.cookie)))
      if (v !== undefined) cookies[k] = v;
  }
  return {
    method: req.method,
    path: req.path,
    headers: req.headers,
    query: req.query as Record<string, unknown>,
    cookies,
  };
}
