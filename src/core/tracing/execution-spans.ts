import {
  context,
  propagation,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
} from '@opentelemetry/api';
import { otelTraceId, type ObservabilityTrace } from './observability-trace';
import { tracingActive, withRootTraceId } from './otel';

const tracer = () => trace.getTracer('interlude');

/** How an execution ended, as its span records it. */
export type SpanOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; message: string; type: string }
  | { kind: 'cancelled'; reason: string };

/** One execution's span: the workflow runs inside it and each `ctx.step` becomes a child span. */
export interface ExecutionSpan {
  /** Runs `fn` with the execution span active, so the workflow's spans nest under it. */
  run<T>(fn: () => T): T;
  /** Wraps one workflow step in a span; undefined when tracing is off (no cost). */
  readonly steps?: { step<T>(name: string, kind: string, fn: () => Promise<T>): Promise<T> };
  end(outcome: SpanOutcome): void;
}

const NO_SPAN: ExecutionSpan = { run: (fn) => fn(), end: () => undefined };

export interface ExecutionSpanInit {
  executionId: string;
  workflow: string;
  userId: string | null;
  trace: ObservabilityTrace;
  /** The request's headers: a `traceparent` parents the span when no HTTP server span did. */
  headers: Record<string, string | string[] | undefined>;
}

/**
 * Starts the span of an execution, in the trace whose id the client sees (`Observability-Trace-Id`):
 * under the HTTP server span or the caller's `traceparent` when they are in that trace, else as the root
 * of a trace with that id, linked to the HTTP span.
 */
export function startExecutionSpan(init: ExecutionSpanInit): ExecutionSpan {
  if (!tracingActive()) return NO_SPAN;
  const traceId = otelTraceId(init.trace.traceId);
  const attributes: Attributes = {
    'interlude.execution.id': init.executionId,
    'interlude.workflow': init.workflow,
    'interlude.observability_trace_id': init.trace.traceId,
  };
  const optional: [string, string | null | undefined][] = [
    ['enduser.id', init.userId],
    ['interlude.conversation_id', init.trace.conversationId],
    ['interlude.user_message_id', init.trace.userMessageId],
    ['interlude.workflow_run_id', init.trace.workflowRunId],
    ['interlude.workflow_parent_id', init.trace.workflowParentId],
    ['interlude.workflow_parent_name', init.trace.workflowParentName],
  ];
  for (const [key, value] of optional) if (value) attributes[key] = value;

  const active = context.active();
  const http = trace.getSpanContext(active);
  const remote = trace.getSpanContext(propagation.extract(active, init.headers));
  const name = `workflow ${init.workflow}`;
  let span: Span;
  if (http?.traceId === traceId) {
    span = tracer().startSpan(name, { attributes }, active);
  } else if (remote?.traceId === traceId) {
    span = tracer().startSpan(name, { attributes }, trace.setSpanContext(active, remote));
  } else {
    const links: Link[] = http && trace.isSpanContextValid(http) ? [{ context: http }] : [];
    span = withRootTraceId(traceId, () =>
      tracer().startSpan(name, { attributes, links, root: true }, active),
    );
  }
  const spanContext: Context = trace.setSpan(active, span);
  let ended = false;
  return {
    run: (fn) => context.with(spanContext, fn),
    steps: { step: (stepName, kind, fn) => stepSpan(stepName, kind, fn) },
    end(outcome) {
      if (ended) return;
      ended = true;
      span.setAttribute('interlude.execution.outcome', outcome.kind);
      if (outcome.kind === 'failed') {
        span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message });
        span.setAttribute('error.type', outcome.type);
      } else if (outcome.kind === 'cancelled') {
        span.setAttribute('interlude.execution.cancel_reason', outcome.reason);
      }
      span.end();
    },
  };
}

function stepSpan<T>(name: string, kind: string, fn: () => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { attributes: { 'interlude.step.kind': kind } }, async (span) => {
    try {
      return await fn();
    } catch (err) {
      const error = err instanceof Error ? err : new Error(String(err));
      span.recordException(error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
      throw err;
    } finally {
      span.end();
    }
  });
}
