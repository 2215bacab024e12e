import type { IncomingMessage, ServerResponse } from 'node:http';
import { Injectable, Optional, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Identity } from '../identity/identity';
import { RequestLog } from '../logging/request-log';
import { observabilityTrace, TRACE_HEADER, type ObservabilityTrace } from './observability-trace';
import { activeOtelTraceId } from './otel';

const TRACE = Symbol('interlude.observabilityTrace');
const TRACED = 'interlude:traced';
type TracedRequest = IncomingMessage & {
  [TRACE]?: ObservabilityTrace;
  identity?: Identity;
  res?: ServerResponse;
};
type Handler = (...args: never[]) => unknown;

/** On a controller or handler that runs a workflow: its requests get their trace (see below). */
export const Traced = (): ClassDecorator & MethodDecorator => SetMetadata(TRACED, true);

/**
 * The per-request context of a `@Traced()` route, set once before its pipes and handler: the
 * observability trace read from the request (NAT's rules), and the caller and trace ids in the
 * request's log lines. The trace id goes to the client (`Observability-Trace-Id`) when the face takes
 * the trace to start the workflow (`traceOf`): on every answer from then on, errors and streams
 * included, and on none refused before (an invalid body).
 *
 * A global guard, after IdentityGuard, rather than an interceptor: Nest runs a route with an
 * interceptor through RxJS, which cost /v1/workflow about 20 µs a request (a tenth of it), and a guard
 * runs at the same point for this purpose. Whether a route is traced is read once per handler.
 */
@Injectable()
export class RequestTraceGuard implements CanActivate {
  private readonly traced = new WeakMap<object, WeakMap<Handler, boolean>>();

  constructor(
    private readonly reflector: Reflector,
    @Optional() private readonly log?: RequestLog,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !this.isTraced(context)) return true;
    const req = context.switchToHttp().getRequest<TracedRequest>();
    const trace = observabilityTrace(req.headers, activeOtelTraceId);
    req[TRACE] = trace;
    this.log?.assign(req, { userId: req.identity?.userId ?? null, traceId: trace.traceId });
    return true;
  }

  private isTraced(context: ExecutionContext): boolean {
    const owner = context.getClass();
    const handler = context.getHandler() as Handler;
    let handlers = this.traced.get(owner);
    if (!handlers) this.traced.set(owner, (handlers = new WeakMap()));
    let traced = handlers.get(handler);
    if (traced === undefined) {
      traced = this.reflector.getAllAndOverride<boolean | undefined>(TRACED, [handler, owner]) === true;
      handlers.set(handler, traced);
    }
    return traced;
  }
}

/** The trace RequestTraceGuard read for this request, for its workflow: announced to the client. */
export function traceOf(req: IncomingMessage): ObservabilityTrace {
  const traced = req as TracedRequest;
  const trace = traced[TRACE];
  if (!trace) throw new Error('No observability trace on this request: mark its route @Traced()');
  traced.res?.setHeader(TRACE_HEADER, trace.traceId);
  return trace;
}
