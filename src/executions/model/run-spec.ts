import type { Identity } from '../../core/identity/identity';
import { withoutCredentials } from '../../core/request-metadata';
import type { ObservabilityTrace } from '../../core/tracing/observability-trace';
import type { RequestMetadata } from '../../runtime/workflow-context';
import type { StartOptions } from './execution';
import type { ExecutionRecord, FaceRef } from './execution-record';

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

/**
 * A run spec as kept beside its record: what the record holds already (workflow, face, interactive,
 * trace id, client address: the same values by construction), an interactive route that is the
 * request's path, and an empty query or cookie jar are left out, and read back by `specWith`. A spec
 * with its `workflow` is whole (one written before, or whose workflow is not the record's).
 */
export type StoredRunSpec = Partial<RunSpec> & Pick<RunSpec, 'input' | 'identity' | 'streaming'>;

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
/** Stands for "none" where the default read back would be something (undefined does not survive JSON). */
const NONE = null as never;

export function storedSpec(spec: RunSpec, record: ExecutionRecord): StoredRunSpec {
  if (spec.workflow !== record.workflow || !spec.request) return spec;
  const { workflow: _workflow, face, interactive, trace, request, interactiveRoute, ...rest } = spec;
  const stored: StoredRunSpec = rest;
  if (!same(face, record.face)) stored.face = face ?? NONE;
  if (interactive !== record.interactive) stored.interactive = interactive;
  if (!same(trace, { traceId: record.traceId })) stored.trace = trace;
  if (interactiveRoute !== request.path) stored.interactiveRoute = interactiveRoute ?? NONE;
  const { clientAddress, query, cookies, ...requestRest } = request;
  const kept: Partial<RequestMetadata> = requestRest;
  if (clientAddress !== record.clientAddress) kept.clientAddress = clientAddress ?? NONE;
  if (!query || Object.keys(query).length > 0) kept.query = query;
  if (!cookies || Object.keys(cookies).length > 0) kept.cookies = cookies;
  stored.request = kept as RequestMetadata;
  return stored;
}

/** The whole run spec of a stored one, with what it left out read from its record. */
export function specWith(stored: StoredRunSpec, record: ExecutionRecord): RunSpec {
  if (stored.workflow !== undefined) return stored as RunSpec;
  const request = stored.request ?? ({} as RequestMetadata);
  return {
    ...stored,
    workflow: record.workflow,
    face: 'face' in stored ? (stored.face ?? undefined) : record.face,
    interactive: stored.interactive ?? record.interactive,
    trace: stored.trace ?? { traceId: record.traceId },
    interactiveRoute: 'interactiveRoute' in stored ? (stored.interactiveRoute ?? undefined) : request.path,
    request: {
      ...request,
      query: request.query ?? {},
      cookies: request.cookies ?? {},
      clientAddress: 'clientAddress' in request ? (request.clientAddress ?? undefined) : record.clientAddress,
    },
  };
}
