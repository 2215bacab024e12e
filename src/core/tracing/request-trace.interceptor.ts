import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  Injectable,
  Optional,
  UseInterceptors,
  type CallHandler,
  type ExecutionContext,
  type NestInterceptor,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import type { Identity } from '../identity/identity';
import { RequestLog } from '../logging/request-log';
import { observabilityTrace, TRACE_HEADER, type ObservabilityTrace } from './observability-trace';
import { activeOtelTraceId } from './otel';

const TRACE = Symbol('interlude.observabilityTrace');
type TracedRequest = IncomingMessage & {
  [TRACE]?: ObservabilityTrace;
  identity?: Identity;
  res?: ServerResponse;
};

/**
 * The per-request context of a route that runs a workflow, set once before its handler: the
 * observability trace read from the request (NAT's rules), and the caller and trace ids in the
 * request's log lines. The trace id goes to the client (`Observability-Trace-Id`) when the face takes
 * the trace to start the workflow (`traceOf`): on every answer from then on, errors and streams
 * included, and on none refused before (an invalid body).
 */
@Injectable()
export class RequestTraceInterceptor implements NestInterceptor {
  constructor(@Optional() private readonly log?: RequestLog) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<TracedRequest>();
    const trace = observabilityTrace(req.headers, activeOtelTraceId);
    req[TRACE] = trace;
    this.log?.assign(req, { userId: req.identity?.userId ?? null, traceId: trace.traceId });
    return next.handle();
  }
}

/** On a controller or handler that runs a workflow: its requests get their trace (see above). */
export const Traced = (): ClassDecorator & MethodDecorator => UseInterceptors(RequestTraceInterceptor);

/** The trace RequestTraceInterceptor read for this request, for its workflow: announced to the client. */
export function traceOf(req: IncomingMessage): ObservabilityTrace {
  const traced = req as TracedRequest;
  const trace = traced[TRACE];
  if (!trace) throw new Error('No observability trace on this request: mark its route @Traced()');
  traced.res?.setHeader(TRACE_HEADER, trace.traceId);
  return trace;
}
