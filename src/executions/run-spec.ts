import type { Identity } from '../core/identity/identity';
import type { ObservabilityTrace } from '../core/tracing/observability-trace';
import type { RequestMetadata } from '../runtime/workflow-context';
import type { StartOptions } from './execution';
import type { FaceRef } from './face-renderers';

/**
 * What a replica needs to run an execution again from the start (durable executions, kept beside the
 * record): the configured workflow, its input, who asked and how. JSON: another process reads it.
 */
export interface RunSpec {
  workflow: string;
  input: unknown;
  identity: Identity;
  request: RequestMetadata;
  face?: FaceRef;
  interactive: boolean;
  streaming: boolean;
  interactiveRoute?: string;
  trace: ObservabilityTrace;
}

/**
 * Credentials are not kept at rest: the identity they proved is. A replayed workflow sees the request
 * without them (a workflow that forwards the caller's Authorization header has nothing to forward).
 */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

function withoutCredentials(request: RequestMetadata): RequestMetadata {
  const headers: RequestMetadata['headers'] = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (!CREDENTIAL_HEADERS.has(name.toLowerCase())) headers[name] = value;
  }
  return { ...request, headers, cookies: {} };
}

export function runSpecOf(
  workflow: string,
  input: unknown,
  identity: Identity,
  options: StartOptions,
  trace: ObservabilityTrace,
): RunSpec {
  return {
    workflow,
    input,
    identity,
    request: withoutCredentials(options.request),
    face: options.face,
    interactive: options.interactive,
    streaming: options.streaming ?? true,
    interactiveRoute: options.interactiveRoute,
    trace,
  };
}
