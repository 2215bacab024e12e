import type { FlowOutcome } from './pending-oauth-flows';

/**
 * Wakes the workflow waiting on an OAuth flow when its callback (on any replica) settled it. Carries
 * only the outcome, never a token: the waiter reads the tokens from the shared token store. A waiter
 * listens first and then re-reads the flow, so an outcome settled in between is not lost.
 */
export abstract class OAuthWakeups {
  /** Listens for `state` in this process (in place when it returns); returns how to stop. */
  abstract listen(state: string, onOutcome: (outcome: FlowOutcome) => void): () => void;
  /** Tells whoever waits on `state`, on whichever replica, how its flow ended. */
  abstract publish(state: string, outcome: FlowOutcome): Promise<void>;
}

export class MemoryOAuthWakeups extends OAuthWakeups {
  private readonly listeners = new Map<string, (outcome: FlowOutcome) => void>();

  listen(state: string, onOutcome: (outcome: FlowOutcome) => void): () => void {
    this.listeners.set(state, onOutcome);
    return () => {
      if (this.listeners.get(state) === onOutcome) this.listeners.delete(state);
    };
  }

  async publish(state: string, outcome: FlowOutcome): Promise<void> {
    this.deliver(state, outcome);
  }

  /** Hands the outcome to a listener in this process; false when none listens. */
  deliver(state: string, outcome: FlowOutcome): boolean {
    const listener = this.listeners.get(state);
    if (!listener) return false;
    this.listeners.delete(state);
    listener(outcome);
    return true;
  }
}
