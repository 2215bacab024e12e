import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { Identity } from '../identity/identity';
import { LOGGED_HEADERS, reachesRoute, type LogSink } from './http-logging';
import { attachRequestContext, isMarkedQuiet, requestContext, type RequestContext } from './request-context';

type LoggedRequest = IncomingMessage & { identity?: Identity; originalUrl?: string };

/** A caller's `X-Request-Id` is kept when it looks like an id; anything else is replaced. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Probes and scrapes come every few seconds and say nothing: not logged. */
function isProbe(url: string): boolean {
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(/\/+$/, '').toLowerCase();
  return path === '/metrics' || path === '/health' || path.startsWith('/health/');
}

const str = JSON.stringify;

function headersJson(headers: IncomingMessage['headers']): string {
  let out = '';
  for (const name of LOGGED_HEADERS) {
    const value = headers[name];
    if (value !== undefined) out += `${out ? ',' : ''}"${name}":${str(value)}`;
  }
  return `{${out}}`;
}

/**
 * The request middleware: a request id (the caller's `X-Request-Id` when it looks like one, else a
 * UUID, echoed back), the request's log context for lines logged while it runs, and one line when its
 * response ends. That line is written straight to the log stream from allow-listed fields, with the
 * constant part serialised once: no child logger, no serialiser pass over the request.
 */
export function requestLogger(
  sink: LogSink,
  oauthCallbackPath: string,
): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const logsLines = sink.logger.isLevelEnabled('info');
  const { human } = sink;
  const base = `,"pid":${process.pid},"hostname":${str(hostname())}`;
  // The OAuth callback's query holds a code and a state, its start link's a state that opens an
  // anonymous flow until a browser confirms it: both are left out.
  const oauthStart = `${oauthCallbackPath.replace(/\/+$/, '')}/start`;
  const loggedUrl = (url: string) => {
    const q = url.indexOf('?');
    if (q < 0) return url;
    const path = url.slice(0, q);
    return reachesRoute(path, oauthCallbackPath) || reachesRoute(path, oauthStart) ? path : url;
  };

  const line = (
    req: LoggedRequest,
    res: ServerResponse,
    context: RequestContext,
    started: number,
  ): string | undefined => {
    const aborted = !res.writableFinished;
    const failed = aborted || res.statusCode >= 500;
    if (!aborted && res.statusCode < 400 && isMarkedQuiet(req)) return undefined;
    const url = str(loggedUrl(req.originalUrl ?? req.url ?? ''));
    const outcome = `"res":{"statusCode":${res.statusCode}},"responseTime":${Date.now() - started}`;
    let out = `{"level":${failed ? 50 : 30},"time":${Date.now()}`;
    // A person reads one short line (method, path, status, time); the ids are for machines.
    if (human) {
      out += `,"req":{"method":${str(req.method)},"url":${url}},${outcome}`;
      return `${out}${aborted ? ',"msg":"aborted"' : ''}}\n`;
    }
    const userId = 'userId' in context ? context.userId : req.identity?.userId;
    out += `${base},"reqId":${str(context.reqId)}`;
    if (userId !== undefined) out += `,"userId":${str(userId)}`;
    if (context.executionId !== undefined) out += `,"executionId":${str(context.executionId)}`;
    if (context.traceId !== undefined) out += `,"traceId":${str(context.traceId)}`;
    out +=
      `,"req":{"id":${str(context.reqId)},"method":${str(req.method)},"url":${url}` +
      `,"remoteAddress":${str(req.socket.remoteAddress)},"headers":${headersJson(req.headers)}},${outcome}`;
    if (aborted) return `${out},"err":{"message":"aborted"},"msg":"request aborted"}\n`;
    return `${out},"msg":${failed ? '"request errored"' : '"request completed"'}}\n`;
  };

  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const reqId = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', reqId);
    const context: RequestContext = { reqId };
    attachRequestContext(req, context);
    if (logsLines && !isProbe(req.url ?? '')) {
      const started = Date.now();
      res.once('close', () => {
        const text = line(req, res, context, started);
        if (text !== undefined) sink.stream.write(text);
      });
    }
    requestContext.run(context, next);
  };
}
