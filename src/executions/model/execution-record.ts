import type { ExecutionFailure } from '../../runtime/execution-event';
import type { InteractionRecord } from '../../interactions/interaction-record';
import type { OAuthWait } from '../../oauth/oauth-wait';
import type { ExecutionStatus } from './execution-state';
import type { Identity } from '../../core/identity/identity';
import type { StartOptions } from './execution';

/** The face an execution was started from, as its record keeps it: a name and plain data. */
export interface FaceRef {
  name: string;
  /** What the face needs to render this execution again (JSON: another process may read it). */
  options?: unknown;
}

/** What the store keeps of an execution: enough to answer a status poll from any replica. */
export interface ExecutionRecord {
  id: string;
  /** The observability trace id the client got back (`Observability-Trace-Id`). */
  traceId: string;
  /** The identity that started it; null for anonymous (then only its unguessable id reaches it). */
  ownerId: string | null;
  /** The address of the client that started it, for the per-address limit on waiting executions. */
  clientAddress?: string;
  workflow: string;
  /** The face that started it: its renderer shows the record to a poll or a re-attached stream. */
  face?: FaceRef;
  status: ExecutionStatus;
  interactive: boolean;
  createdAt: number;
  updatedAt: number;
  interactions: Record<string, InteractionRecord>;
  /** The open interaction's id while status is interaction_required. */
  openInteractionId?: string;
  oauth?: OAuthWait;
  /** The workflow's raw result; each face renders it its own way. */
  result?: unknown;
  error?: ExecutionFailure;
  /** When a finished record may be evicted (epoch ms). */
  expiresAt?: number;
}

/** A new execution's record as it starts running, owned by whoever started it. */
export function startingRecord(
  id: string,
  traceId: string,
  identity: Identity,
  workflow: string,
  options: Pick<StartOptions, 'request' | 'face' | 'interactive'>,
): ExecutionRecord {
  const now = Date.now();
  return {
    id,
    traceId,
    ownerId: identity.userId,
    clientAddress: options.request.clientAddress,
    workflow,
    face: options.face,
    status: 'running',
    interactive: options.interactive,
    createdAt: now,
    updatedAt: now,
    interactions: {},
  };
}
