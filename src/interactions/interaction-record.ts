import type { Prompt, PromptAnswer } from '../runtime/prompts';

/** One question asked during an execution. Closed interactions are kept so late answers get 400. */
export interface InteractionRecord {
  prompt: Prompt;
  status: 'open' | 'resolved' | 'expired' | 'cancelled';
  /** Epoch ms after which the wait fails, or null. */
  deadline: number | null;
  /**
   * The accepted answer (durable executions): kept with the record so that a replica taking the
   * execution over finds it even when the wake-up was sent while nobody waited.
   */
  answer?: PromptAnswer;
  /**
   * Where a durable run asked it: its journal point and the seq of its event log then (the run's
   * journal entry for it, read back by a replica that takes the run over).
   */
  at?: { point: string; seq: number };
}

export type ClosedStatus = Exclude<InteractionRecord['status'], 'open'>;

/**
 * The waits an interaction opens and closes, handed to the engine that records them. Closing is a
 * compare-and-set: `already_closed` when an answer, a timeout or a cancel got there first.
 */
export type InteractionWait =
  | { kind: 'interaction_opened'; interactionId: string; interaction: InteractionRecord }
  | { kind: 'interaction_closed'; interactionId: string; status: ClosedStatus; answer?: PromptAnswer };

/** What recording a wait came to; `already_closed` lost a compare-and-set. */
export type WaitOutcome = 'applied' | 'not_found' | 'already_closed';
