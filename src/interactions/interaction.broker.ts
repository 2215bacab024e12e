import type { PromptAnswer } from '../runtime/prompts';

/**
 * Wakes the workflow waiting on an interaction when its answer arrives. In one process an in-memory
 * map; in a scale-out deployment Redis pub/sub, so the answer can reach any replica.
 */
export abstract class InteractionBroker {
  /** Registers a waiter; resolves with the answer, or rejects when abandoned. */
  abstract wait(interactionId: string): Promise<PromptAnswer>;
  /** Hands an accepted answer to whoever waits for it (possibly on another replica). */
  abstract deliver(interactionId: string, answer: PromptAnswer): Promise<void>;
  /** Stops waiting locally (timeout, cancel) with `reason` as the rejection. */
  abstract abandon(interactionId: string, reason: unknown): void;
}

export class InProcessInteractionBroker extends InteractionBroker {
  private readonly waiters = new Map<
    string,
    { resolve: (a: PromptAnswer) => void; reject: (e: unknown) => void }
  >();

  wait(interactionId: string): Promise<PromptAnswer> {
    return new Promise((resolve, reject) => this.waiters.set(interactionId, { resolve, reject }));
  }

  async deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    const waiter = this.waiters.get(interactionId);
    this.waiters.delete(interactionId);
    waiter?.resolve(answer);
  }

  abandon(interactionId: string, reason: unknown): void {
    const waiter = this.waiters.get(interactionId);
    this.waiters.delete(interactionId);
    waiter?.reject(reason);
  }

  /** Whether a workflow in this process waits on the interaction. */
  has(interactionId: string): boolean {
    return this.waiters.has(interactionId);
  }

  get waiting(): number {
    return this.waiters.size;
  }
}
