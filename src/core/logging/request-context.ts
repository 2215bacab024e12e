import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage } from 'node:http';

/** What a face learns about a request after it arrived, for its log lines. */
export interface RequestLogFields {
  userId?: string | null;
  executionId?: string;
  traceId?: string;
}

/** One request's log context: its id and the fields the faces assigned so far. One object per request. */
export interface RequestContext extends RequestLogFields {
  reqId: string;
}

/**
 * The request a log line is written for. Entered only while logging is on, with the request's one
 * context object (no child logger): the logger's mixin reads it when a line is actually written.
 */
export const requestContext = new AsyncLocalStorage<RequestContext>();

const CONTEXT = Symbol('interlude.requestContext');
type WithContext = IncomingMessage & { [CONTEXT]?: RequestContext };

export function attachRequestContext(req: IncomingMessage, context: RequestContext): void {
  (req as WithContext)[CONTEXT] = context;
}

/** The request's log context, when the logging middleware saw it. */
export function requestContextOf(req: IncomingMessage): RequestContext | undefined {
  return (req as WithContext)[CONTEXT];
}

const QUIET = Symbol('interlude.quietRequest');
type MaybeQuiet = IncomingMessage & { [QUIET]?: true };

/** Marks a request whose success is not worth a line (the page's script, stylesheet, icon). */
export function markQuiet(req: IncomingMessage): void {
  (req as MaybeQuiet)[QUIET] = true;
}

export function isMarkedQuiet(req: IncomingMessage): boolean {
  return (req as MaybeQuiet)[QUIET] === true;
}
