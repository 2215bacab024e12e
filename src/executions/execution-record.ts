import type { ExecutionFailure } from '../core/events/execution-event';
import type { Prompt } from '../runtime/prompts';

export type ExecutionStatus = 'running' | 'interaction_required' | 'oauth_required' | 'completed' | 'failed';

export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed'];
export const WAITING_STATUSES: readonly ExecutionStatus[] = ['interaction_required', 'oauth_required'];

/** One question asked during an execution. Closed interactions are kept so late answers get 400. */
export interface InteractionRecord {
  prompt: Prompt;
  status: 'open' | 'resolved' | 'expired' | 'cancelled';
  /** Epoch ms after which the wait fails, or null. */
  deadline: number | null;
}

export interface OAuthWait {
  authUrl: string;
  state: string;
  provider: string;
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
  status: ExecutionStatus;
  interactive: boolean;
  createdAt: number;
  updatedAt: number;
  interactions: Record<string, InteractionRecord>;
  /** The open interaction's id while status is interaction_required. */
  openInteractionId?: string;
  oauth?: OAuthWait;
  result?: unknown;
  error?: ExecutionFailure;
  /** When a finished record may be evicted (epoch ms). */
  expiresAt?: number;
}

export type CloseOutcome = 'closed' | 'not_found' | 'already_closed';
