import { randomUUID } from 'node:crypto';

/** The response header every non-streaming face answers with (streams carry an `observability_trace:` line). */
export const TRACE_HEADER = 'Observability-Trace-Id';

/**
 * The observability ids of one execution, as NAT's server reads them from the request: the trace id it
 * returns to the client, and the cross-workflow headers a calling workflow sends.
 */
export interface ObservabilityTrace {
  /** From `traceparent`, else `workflow-trace-id`, else new: 32 lowercase hex (a UUID when sent as one). */
  traceId: string;
  conversationId?: string;
  userMessageId?: string;
  workflowRunId?: string;
  workflowParentId?: string;
  workflowParentName?: string;
}

type Headers = Record<string, string | string[] | undefined>;

// W3C Trace Context, version 00: `00-<trace-id>-<parent-id>-<flags>`, lowercase hex only.
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const HEX32 = /^[0-9a-f]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ALL_ZEROS = /^[0-]+$/;
/** Free-text ids (conversation, run, parent) are kept when they look like ids, not like payloads. */
const MAX_ID_LENGTH = 256;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed ? trimmed : undefined;
}

function freeText(headers: Headers, name: string): string | undefined {
  const value = header(headers, name);
  return value !== undefined && value.length <= MAX_ID_LENGTH ? value : undefined;
}

/** The trace-id of a valid `traceparent`, or undefined (malformed, other version, all-zero ids). */
export function traceIdFromTraceparent(value: string | undefined): string | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value);
  if (!match || ALL_ZEROS.test(match[1]) || ALL_ZEROS.test(match[2])) return undefined;
  return match[1];
}

/** A `workflow-trace-id` when it is a UUID or 32 hex digits (any case; returned lowercase), else undefined. */
export function validWorkflowTraceId(value: string | undefined): string | undefined {
  const id = value?.toLowerCase();
  if (id === undefined || !(HEX32.test(id) || UUID.test(id)) || ALL_ZEROS.test(id)) return undefined;
  return id;
}

/** A fresh trace id: 32 lowercase hex digits, so it is also a valid W3C / OpenTelemetry trace id. */
export function newTraceId(): string {
  // randomUUID draws from a buffered entropy pool: far cheaper per request than randomBytes(16).
  return randomUUID().replace(/-/g, '');
}

/** The OpenTelemetry form of a trace id (a UUID without its dashes). */
export function otelTraceId(traceId: string): string {
  return traceId.replace(/-/g, '');
}

/**
 * Reads a request's observability ids the way NAT does: `traceparent` wins, then `workflow-trace-id`;
 * `fallback` (the active OpenTelemetry trace, when tracing is on) or a new id otherwise.
 */
export function observabilityTrace(
  headers: Headers,
  fallback?: () => string | undefined,
): ObservabilityTrace {
  const traceId =
    traceIdFromTraceparent(header(headers, 'traceparent')) ??
    validWorkflowTraceId(header(headers, 'workflow-trace-id')) ??
    fallback?.() ??
    newTraceId();
  const trace: ObservabilityTrace = { traceId };
  const fields: [keyof Omit<ObservabilityTrace, 'traceId'>, string][] = [
    ['conversationId', 'conversation-id'],
    ['userMessageId', 'user-message-id'],
    ['workflowRunId', 'workflow-run-id'],
    ['workflowParentId', 'workflow-parent-id'],
    ['workflowParentName', 'workflow-parent-name'],
  ];
  for (const [key, name] of fields) {
    const value = freeText(headers, name);
    if (value !== undefined) trace[key] = value;
  }
  return trace;
}
