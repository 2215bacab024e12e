import type { AbortObserver, AbortWatch } from '../runtime/lazy-abort';
import { PromptTimeoutError, type PromptAnswer } from '../runtime/prompts';
import { HandedOver } from '../runtime/run-journal';
import type { AnswerWaiter, InteractionBroker } from './interaction.broker';
import type { DeadlineWaiter, PromptDeadlines } from './prompt-deadlines';
import type { AskingExecution } from './interaction.service';

/**
 * One workflow waiting on a person's answer, until the answer, its deadline or a cancel. An object
 * with its methods on the prototype rather than an async function: a waiting execution holds this,
 * the promise the workflow awaits and its timer, and no suspended frame or closures.
 */
export class OpenPrompt implements AnswerWaiter, AbortObserver, DeadlineWaiter {
  private resolve!: (answer: PromptAnswer | Promise<never>) => void;
  deadlineSlot = -1;
  private ended = false;
  private waitSeconds: number | null = null;

  private constructor(
    private readonly broker: InteractionBroker,
    private readonly deadlines: PromptDeadlines,
    private readonly execution: AskingExecution,
    private readonly interactionId: string,
    private readonly cancel: AbortWatch,
  ) {}

  /**
   * Listens for the interaction's answer (an answer accepted before `arm` is not missed); the promise
   * settles once, with the answer or with why the wait ended. `listening` resolves once an answer
   * accepted on any replica surely reaches this wait.
   */
  static listen(
    broker: InteractionBroker,
    deadlines: PromptDeadlines,
    execution: AskingExecution,
    interactionId: string,
    cancel: AbortWatch,
  ): { wait: OpenPrompt; answer: Promise<PromptAnswer>; listening: Promise<void> } {
    const wait = new OpenPrompt(broker, deadlines, execution, interactionId, cancel);
    const answer = new Promise<PromptAnswer>((resolve) => (wait.resolve = resolve));
    const listening = broker.wait(interactionId, wait);
    return { wait, answer, listening };
  }

  get executionId(): string {
    return this.execution.id;
  }

  /** Starts the deadline (epoch ms, or none) and the watch for a cancel. */
  arm(deadline: number | null, waitSeconds: number | null): void {
    if (this.ended) return;
    this.waitSeconds = waitSeconds;
    if (deadline !== null) this.deadlines.add(this, deadline);
    if (this.cancel.aborted) return this.cancelled(this.cancel.abortReason);
    this.cancel.watch(this);
  }

  answered(answer: PromptAnswer): void {
    if (!this.end()) return;
    const { interactionId } = this;
    this.execution.publish({ kind: 'interaction_resolved', interactionId, response: answer });
    this.resolve(answer);
  }

  /** The answer the shared record holds, when it was answered (its wake-up may have been lost). */
  async recorded(): Promise<PromptAnswer | undefined> {
    if (this.ended || !this.execution.recorded) return undefined;
    const interaction = await this.execution.recorded(this.interactionId);
    return interaction?.status === 'resolved' ? interaction.answer : undefined;
  }

  abandoned(reason: unknown): void {
    if (this.end()) this.resolve(Promise.reject(reason as Error));
  }

  /** Ends the wait with what the record says instead of a wake-up (`settle` may throw). */
  settleWith(settle: () => PromptAnswer): void {
    if (this.ended) return;
    try {
      const answer = settle();
      if (this.end()) this.resolve(answer);
    } catch (err) {
      if (this.end()) this.resolve(Promise.reject(err as Error));
    }
  }

  cancelled(reason: unknown): void {
    void this.giveUp('cancelled', reason);
  }

  expired(): void {
    void this.giveUp('expired', new PromptTimeoutError(this.waitSeconds ?? 0));
  }

  private async giveUp(status: 'expired' | 'cancelled', reason: unknown): Promise<void> {
    const { broker, interactionId } = this;
    // Handed to another replica: the interaction stays open for it, only this waiter goes.
    if (reason instanceof HandedOver) return broker.abandon(interactionId, reason);
    // Compare-and-set: if an answer won the race, it is being delivered and the wait goes on.
    if ((await this.execution.record({ kind: 'interaction_closed', interactionId, status })) === 'applied') {
      broker.abandon(interactionId, reason);
    }
  }

  /** Stops the deadline and the watch; false when the wait had already ended. */
  private end(): boolean {
    if (this.ended) return false;
    this.ended = true;
    this.deadlines.remove(this);
    this.cancel.unwatch(this);
    this.execution.waitEnded?.();
    return true;
  }
}
