import type { IncomingHttpHeaders } from 'node:http';
import type { Request } from 'express';
import { parse as parseCookies } from 'cookie';
import type { RequestMetadata } from '../request-metadata';
import { addressOf } from './connection-caps';

/** The cookies of a request's (or a WebSocket handshake's) `Cookie` header. */
export function cookiesOf(headers: IncomingHttpHeaders): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (typeof headers.cookie === 'string') {
    for (const [k, v] of Object.entries(parseCookies(headers.cookie))) if (v !== undefined) cookies[k] = v;
  }
  return cookies;
}

/** The request as a workflow may see it: no body, no socket. */
export function requestMetadata(req: Request): RequestMetadata {
  return {
    method: req.method,
    path: req.path,
    headers: req.headers,
    query: req.query as Record<string, unknown>,
    cookies: cookiesOf(req.headers),
    clientAddress: addressOf(req),
  };
}
