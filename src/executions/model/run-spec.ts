import type { Identity } from '../../core/identity/identity';
import { withoutCredentials } from '../../core/request-metadata';
import type { ObservabilityTrace } from '../../core/tracing/observability-trace';
import type { RequestMetadata } from '../../runtime/workflow-context';
import type { StartOptions } from './execution';
import type { FaceRef } from './execution-record';

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
