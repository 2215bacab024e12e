import type { ExecutionFailure } from '../../runtime/execution-event';
import type { InteractionWait, WaitOutcome } from '../../interactions/interaction-record';
import type { OAuthFlowWait } from '../../oauth/oauth-wait';
import type { ExecutionRecord } from './execution-record';

export type ExecutionStatus = 'running' | 'interaction_required' | 'oauth_required' | 'completed' | 'failed';

export const TERMINAL_STATUSES: readonly ExecutionStatus[] = ['completed', 'failed'];
export const WAITING_STATUSES: readonly ExecutionStatus[] = ['interaction_required', 'oauth_required'];

/** Everything that changes an execution's record once it exists. */
export type ExecutionTransition =
  | InteractionWait
  | OAuthFlowWait
  | { kind: 'completed'; result: unknown; expiresAt: number }
  | { kind: 'failed'; error: ExecutionFailure; expiresAt: number };

/** Which status may follow which; a terminal status is followed by none. */
const ALLOWED: Record<ExecutionStatus, readonly ExecutionStatus[]> = {
  running: ['interaction_required', 'oauth_required', 'completed', 'failed'],
  // Parallel branches may ask and authorize while an earlier wait is still open.
  interaction_required: ['running', 'interaction_required', 'oauth_required', 'completed', 'failed'],
  oauth_required: ['running', 'interaction_required', 'oauth_required', 'completed', 'failed'],
  completed: [],
  failed: [],
};

/** A transition the engine should never attempt: a bug, not a client error. */
export class IllegalTransition extends Error {
  constructor(
    readonly executionId: string,
    readonly from: ExecutionStatus,
    readonly transition: ExecutionTransition['kind'],
    to: ExecutionStatus,
  ) {
    super(
      `Execution ${executionId}: ${transition} would move it from ${from} to ${to}, which is not allowed`,
    );
    this.name = 'IllegalTransition';
  }
}

export type TransitionOutcome = WaitOutcome;

export interface Applied {
  outcome: TransitionOutcome;
  /** The record after the transition (unchanged unless `applied`). */
  record: ExecutionRecord;
}

export function isTerminalStatus(status: ExecutionStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/**
 * The one place an execution's record changes: checks the transition against the allowed ones and
 * returns the new record (the input is not modified). A wait closed after the execution ended (a
 * cancel tearing down its prompt) is recorded on the interaction but leaves the status as it is.
 */
export function applyTransition(
  record: ExecutionRecord,
  transition: ExecutionTransition,
  now: number,
): Applied {
  const move = (to: ExecutionStatus, patch: Partial<ExecutionRecord>): Applied => {
    if (!ALLOWED[record.status].includes(to)) {
      throw new IllegalTransition(record.id, record.status, transition.kind, to);
    }
    return { outcome: 'applied', record: { ...record, ...patch, status: to, updatedAt: now } };
  };
  switch (transition.kind) {
    case 'interaction_opened':
      return move('interaction_required', {
        openInteractionId: transition.interactionId,
        interactions: { ...record.interactions, [transition.interactionId]: transition.interaction },
      });
    case 'interaction_closed': {
      const interaction = record.interactions[transition.interactionId];
      if (!interaction) return { outcome: 'not_found', record };
      if (interaction.status !== 'open') return { outcome: 'already_closed', record };
      const interactions = {
        ...record.interactions,
        [transition.interactionId]: {
          ...interaction,
          status: transition.status,
          ...(transition.answer !== undefined && { answer: transition.answer }),
        },
      };
      const current = record.openInteractionId === transition.interactionId;
      if (!current || isTerminalStatus(record.status)) {
        return { outcome: 'applied', record: { ...record, interactions, updatedAt: now } };
      }
      return move('running', { interactions, openInteractionId: undefined });
    }
    case 'oauth_pending':
      return move('oauth_required', { oauth: transition.oauth });
    case 'oauth_resolved':
      if (record.status !== 'oauth_required') {
        return { outcome: 'applied', record: { ...record, oauth: undefined, updatedAt: now } };
      }
      return move('running', { oauth: undefined });
    case 'completed':
      return move('completed', { result: transition.result, expiresAt: transition.expiresAt });
    case 'failed':
      return move('failed', { error: transition.error, expiresAt: transition.expiresAt });
  }
}
