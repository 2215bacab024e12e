import type { ExecutionFailure } from '../core/events/execution-event';

export type ExecutionStatus =
  'running' | 'interaction_required' | 'oauth_required' | 'completed' | 'failed' | 'cancelled';

export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed', 'cancelled'];

/** What the store keeps of an execution: enough to answer a status poll from any replica. */
export interface ExecutionRecord {
  id: string;
  /** The identity that started it; null for anonymous (then only its unguessable id reaches it). */
  ownerId: string | null;
  workflow: string;
  status: ExecutionStatus;
  interactive: boolean;
  createdAt: number;
  updatedAt: number;
  result?: unknown;
  error?: ExecutionFailure;
  /** When a finished record may be evicted (epoch ms). */
  expiresAt?: number;
}
