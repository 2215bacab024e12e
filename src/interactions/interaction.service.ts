import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { ExecutionEventBody } from '../runtime/execution-event';
import type { AbortWatch } from '../runtime/lazy-abort';
import {
  AnswerMismatch,
  normalizeAnswer,
  PROMPT_GRACE_SECONDS,
  PromptTimeoutError,
  type Prompt,
  type PromptAnswer,
} from '../runtime/prompts';
import { HandedOver } from '../runtime/run-journal';
import { InteractionBroker } from './interaction.broker';
import type { InteractionRecord, InteractionWait, WaitOutcome } from './interaction-record';

/** The execution a prompt belongs to, as the engine hands it over: it records the waits asked here. */
export interface AskingExecution {
  id: string;
  publish(event: ExecutionEventBody): void;
  record(wait: InteractionWait): Promise<WaitOutcome>;
}

/** The rendezvous between a workflow asking and a person answering, whichever face the answer uses. */
@Injectable()
export class InteractionService {
  constructor(private readonly broker: InteractionBroker) {}

  /** Asks a person and waits (without blocking anything) for the answer, the deadline or a cancel. */
  async ask(
    execution: AskingExecution,
    prompt: Prompt,
    cancel: AbortWatch,
    interactionId: string = randomUUID(),
    /** How long to wait when the prompt has no timeout of its own (null: for ever). */
    waitSeconds: number | null = prompt.timeout,
  ): Promise<PromptAnswer> {
    if (prompt.input_type === 'notification') {
      // Notifications are acknowledged at once: shown to the person, never waited on.
      const interaction = { prompt, status: 'open' as const, deadline: null };
      await execution.record({ kind: 'interaction_opened', interactionId, interaction });
      await execution.record({ kind: 'interaction_closed', interactionId, status: 'resolved' });
      execution.publish({ kind: 'interaction_required', interactionId, prompt });
      execution.publish({ kind: 'interaction_resolved', interactionId, response: { type: 'notification' } });
      return { type: 'notification' };
    }
    if (cancel.aborted) throw cancel.abortReason;
    const deadline = waitSeconds === null ? null : Date.now() + (waitSeconds + PROMPT_GRACE_SECONDS) * 1000;
    const answer = this.broker.wait(interactionId);
    const interaction = { prompt, status: 'open' as const, deadline };
    await execution.record({ kind: 'interaction_opened', interactionId, interaction });
    execution.publish({ kind: 'interaction_required', interactionId, prompt });
    return this.waitOpen(execution, interactionId, deadline, waitSeconds, cancel, answer);
  }

  /**
   * Waits again on an interaction a replica that is gone opened (durable executions): the same id,
   * what is left of its deadline, no second `interaction_required`. The broker is listened to before
   * the record is read, so an answer accepted at any moment is seen once: in the record, or as a wake-up.
   */
  async resume(
    execution: AskingExecution,
    interactionId: string,
    read: () => Promise<InteractionRecord | undefined>,
    cancel: AbortWatch,
  ): Promise<PromptAnswer> {
    const answer = this.broker.wait(interactionId);
    const interaction = await read().catch((err: unknown) => {
      this.broker.abandon(interactionId, err);
      throw err;
    });
    if (interaction?.status !== 'open') {
      answer.catch(() => undefined);
      this.broker.abandon(interactionId, new Error('not waiting'));
      return settled(execution, interactionId, interaction);
    }
    const waitSeconds = interaction.prompt.timeout;
    return this.waitOpen(execution, interactionId, interaction.deadline, waitSeconds, cancel, answer);
  }

  private async waitOpen(
    execution: AskingExecution,
    interactionId: string,
    deadline: number | null,
    waitSeconds: number | null,
    cancel: AbortWatch,
    answer: Promise<PromptAnswer>,
  ): Promise<PromptAnswer> {
    const giveUp = async (status: 'expired' | 'cancelled', reason: unknown) => {
      // Handed to another replica: the interaction stays open for it, only this waiter goes.
      if (reason instanceof HandedOver) return this.broker.abandon(interactionId, reason);
      // Compare-and-set: if an answer won the race, it is being delivered and the wait goes on.
      if ((await execution.record({ kind: 'interaction_closed', interactionId, status })) === 'applied') {
        this.broker.abandon(interactionId, reason);
      }
    };
    const timer =
      deadline === null
        ? undefined
        : setTimeout(
            () => void giveUp('expired', new PromptTimeoutError(waitSeconds ?? 0)),
            Math.max(0, deadline - Date.now()),
          );
    const stopWatching = cancel.onAbort((reason) => void giveUp('cancelled', reason));
    try {
      const response = await answer;
      execution.publish({ kind: 'interaction_resolved', interactionId, response });
      return response;
    } finally {
      if (timer) clearTimeout(timer);
      stopWatching();
    }
  }

  /**
   * Checks a person's answer against the open interaction it answers (404 when there is none, 400
   * when it is closed, 422 when it does not fit the prompt). The engine then closes the wait.
   */
  accept(
    executionId: string,
    interactionId: string,
    interaction: InteractionRecord | undefined,
    raw: unknown,
  ): PromptAnswer {
    if (!interaction) {
      throw new AppError(
        ErrorCode.NotFound,
        `Interaction ${interactionId} not found for execution ${executionId}`,
      );
    }
    if (interaction.status !== 'open') throw alreadyResolved(interactionId);
    try {
      return normalizeAnswer(interaction.prompt, raw);
    } catch (err) {
      if (!(err instanceof AnswerMismatch)) throw err;
      throw AppError.validation([
        { type: 'value_error', loc: ['body', 'response'], msg: err.message, input: raw },
      ]);
    }
  }

  /** Hands an accepted answer (its wait already closed) to the workflow waiting for it. */
  deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    return this.broker.deliver(interactionId, answer);
  }
}

/** What an interaction that closed while its execution changed hands comes to for the workflow. */
function settled(
  execution: AskingExecution,
  interactionId: string,
  interaction: InteractionRecord | undefined,
): PromptAnswer {
  if (interaction?.status === 'resolved' && interaction.answer) {
    execution.publish({ kind: 'interaction_resolved', interactionId, response: interaction.answer });
    return interaction.answer;
  }
  if (interaction?.status === 'expired') throw new PromptTimeoutError(interaction.prompt.timeout ?? 0);
  throw new Error(`Interaction ${interactionId} is ${interaction?.status ?? 'gone'}; the wait cannot go on`);
}

export function alreadyResolved(interactionId: string): AppError {
  return new AppError(ErrorCode.AlreadyResolved, `Interaction ${interactionId} has already been resolved`);
}
