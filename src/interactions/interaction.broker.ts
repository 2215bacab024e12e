import type { PromptAnswer } from '../runtime/prompts';

/**
 * Whoever waits on an interaction: called once, with the answer or with why the wait was given up.
 * An object rather than a promise's resolve/reject pair: a waiting execution keeps one object here,
 * no closures.
 */
export interface AnswerWaiter {
  /** The execution whose workflow waits. */
  readonly executionId: string;
  answered(answer: PromptAnswer): void;
  abandoned(reason: unknown): void;
  /** The answer the shared record holds already, if any (a wake-up may have been lost with Redis). */
  recorded?(): Promise<PromptAnswer | undefined>;
}

/**
 * Wakes the workflow waiting on an interaction when its answer arrives. In one process an in-memory
 * map; in a scale-out deployment Redis pub/sub, so the answer can reach any replica.
 */
export abstract class InteractionBroker {
  /**
   * Registers the waiter of an interaction; it is called once, on `deliver` or `abandon`. Resolves once
   * an answer delivered from then on reaches it, on whichever replica the answer is accepted: what
   * reads the record to find an answer accepted earlier reads it after that.
   */
  abstract wait(interactionId: string, waiter: AnswerWaiter): Promise<void>;
  /** Hands an accepted answer to whoever waits for it (possibly on another replica). */
  abstract deliver(executionId: string, interactionId: string, answer: PromptAnswer): Promise<void>;
  /** Stops waiting locally (timeout, cancel): the waiter is told `reason`. */
  abstract abandon(interactionId: string, reason: unknown): void;
  /** The largest answer (characters of JSON) a wake-up carries; undefined: no limit (one process). */
  get maxAnswerChars(): number | undefined {
    return undefined;
  }
}

export class InProcessInteractionBroker extends InteractionBroker {
  private readonly waiters = new Map<string, AnswerWaiter>();

  async wait(interactionId: string, waiter: AnswerWaiter): Promise<void> {
    this.waiters.set(interactionId, waiter);
  }

  /**
   * Hands the answer to its waiter once this turn of the event loop is over, as a wake-up from another
   * replica would: whoever accepted the answer acknowledges it first (the answer's 204 is written in
   * this turn), and the workflow resumes after, rather than run to its next wait before the 204 goes.
   * Anything the client does after seeing the acknowledgement is read in a later turn, so it still
   * comes after the workflow resumed.
   */
  async deliver(_executionId: string, interactionId: string, answer: PromptAnswer): Promise<void> {
    const waiter = this.take(interactionId);
    if (waiter) setImmediate(() => waiter.answered(answer));
  }

  /**
   * Hands the answer to its waiter now: a wake-up from the replica that accepted it, whose
   * acknowledgement went already. Deferred as `deliver` does, the workflow would resume in the check
   * phase, and what it writes at the end of its turn (its events, log-writes.ts) would wait for the
   * loop's next turn, behind whatever I/O that turn handles first.
   */
  wake(interactionId: string, answer: PromptAnswer): void {
    this.take(interactionId)?.answered(answer);
  }

  private take(interactionId: string): AnswerWaiter | undefined {
    const waiter = this.waiters.get(interactionId);
    this.waiters.delete(interactionId);
    return waiter;
  }

  abandon(interactionId: string, reason: unknown): void {
    const waiter = this.waiters.get(interactionId);
    this.waiters.delete(interactionId);
    waiter?.abandoned(reason);
  }

  /**
   * Delivers to each waiter the answer its record holds already (wake-ups lost while Redis was away),
   * a few at a time; returns how many were delivered.
   */
  async redeliver(width = 16): Promise<number> {
    const waiting = [...this.waiters.entries()];
    let delivered = 0;
    const next = async (): Promise<void> => {
      for (let item = waiting.pop(); item; item = waiting.pop()) {
        const [interactionId, waiter] = item;
        const answer = await waiter.recorded?.().catch(() => undefined);
        if (answer && this.waiters.get(interactionId) === waiter) {
          delivered++;
          await this.deliver(waiter.executionId, interactionId, answer);
        }
      }
    };
    await Promise.all(Array.from({ length: width }, next));
    return delivered;
  }

  /** Whether a workflow in this process waits on the interaction. */
  has(interactionId: string): boolean {
    return this.waiters.has(interactionId);
  }

  /** Who waits on the interaction in this process. */
  waiterOf(interactionId: string): AnswerWaiter | undefined {
    return this.waiters.get(interactionId);
  }

  /** The executions whose workflows wait in this process. */
  executions(): Set<string> {
    return new Set([...this.waiters.values()].map((waiter) => waiter.executionId));
  }

  get waiting(): number {
    return this.waiters.size;
  }
}

/**
 * A waiter as a promise (tests, and waits that are not kept for long): `answer` settles with the answer
 * or the reason the wait was given up; `listening` resolves once an answer accepted anywhere reaches it.
 */
export function answerOf(
  broker: InteractionBroker,
  executionId: string,
  interactionId: string,
): { answer: Promise<PromptAnswer>; listening: Promise<void> } {
  let listening!: Promise<void>;
  const answer = new Promise<PromptAnswer>((answered, abandoned) => {
    listening = broker.wait(interactionId, { executionId, answered, abandoned });
  });
  return { answer, listening };
}
