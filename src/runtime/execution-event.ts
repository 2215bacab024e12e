import type { IntermediateStep } from './intermediate-step';

/** A failure as every face reports it: the message and the error's type name (NAT's `details`). */
export interface ExecutionFailure {
  message: string;
  type: string;
}

/**
 * The transport-neutral event stream of one execution. Every face renders these in its own wire
 * format; `seq` numbers them from 1 in the order they happened so a reconnecting client can resume.
 */
export type ExecutionEventBody =
  | { kind: 'step'; step: IntermediateStep }
  | { kind: 'output'; value: unknown }
  | { kind: 'interaction_required'; interactionId: string; prompt: unknown }
  | { kind: 'interaction_resolved'; interactionId: string; response: unknown }
  | { kind: 'oauth_required'; authUrl: string; state: string; provider: string }
  | { kind: 'oauth_resolved'; state: string; provider: string }
  /** `streamed`: whether the workflow emitted output items (else faces stream the result itself). */
  | { kind: 'completed'; result: unknown; streamed: boolean }
  | { kind: 'failed'; error: ExecutionFailure }
  | { kind: 'cancelled'; reason: string }
  /**
   * Replay only: `count` earlier events are no longer kept (the execution's event log is bounded), so
   * a late re-attacher knows what it missed. Live subscribers never get it.
   */
  | { kind: 'events_dropped'; count: number };

export type ExecutionEvent = ExecutionEventBody & { seq: number };

export type TerminalEvent = Extract<ExecutionEvent, { kind: 'completed' | 'failed' | 'cancelled' }>;

export function isTerminal(event: ExecutionEvent): event is TerminalEvent {
  return event.kind === 'completed' || event.kind === 'failed' || event.kind === 'cancelled';
}
