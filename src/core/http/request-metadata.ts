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

/** Most requests have no query or no cookie: they share one (frozen) empty object, not one each. */
const NONE: Record<string, never> = Object.freeze({});

/**
 * The request as a workflow may see it: no body, no socket. A paused execution keeps it as long as
 * it waits, so an empty query or cookie jar is the shared NONE rather than an object of its own.
 */
export function requestMetadata(req: Request): RequestMetadata {
  const url = req.url ?? '';
  return {
    method: req.method,
    path: req.path,
    headers: req.headers,
    query: url.includes('?') ? (req.query as Record<string, unknown>) : NONE,
    cookies: req.headers.cookie ? cookiesOf(req.headers) : NONE,
    clientAddress: addressOf(req),
  };
}
