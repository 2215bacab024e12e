import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { ExecutionEventBody } from '../core/events/execution-event';
import type { Identity } from '../core/identity/identity';
import { ExecutionStore } from '../executions/execution.store';
import type { ExecutionRecord } from '../executions/execution-record';
import {
  AnswerMismatch,
  normalizeAnswer,
  PROMPT_GRACE_SECONDS,
  PromptTimeoutError,
  type Prompt,
  type PromptAnswer,
} from '../runtime/prompts';
import type { AbortWatch } from '../executions/lazy-abort';
import { InteractionBroker } from './interaction.broker';

/** The execution a prompt belongs to, as the engine hands it over. */
export interface AskingExecution {
  id: string;
  publish(event: ExecutionEventBody): void;
}

/** Another identity gets 404 for an execution, never 403, so ids leak nothing. */
export function ownedBy(record: ExecutionRecord, identity: Identity): boolean {
  return record.ownerId === null || record.ownerId === identity.userId;
}

export function executionNotFound(id: string): AppError {
  return new AppError(ErrorCode.NotFound, `Execution ${id} not found`);
}

/** The rendezvous between a workflow asking and a person answering, whichever face the answer uses. */
@Injectable()
export class InteractionService {
  constructor(
    private readonly store: ExecutionStore,
    private readonly broker: InteractionBroker,
  ) {}

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
      await this.store.openInteraction(execution.id, interactionId, {
        prompt,
        status: 'open',
        deadline: null,
      });
      await this.store.closeInteraction(execution.id, interactionId, 'resolved');
      execution.publish({ kind: 'interaction_required', interactionId, prompt });
      execution.publish({ kind: 'interaction_resolved', interactionId, response: { type: 'notification' } });
      return { type: 'notification' };
    }
    if (cancel.aborted) throw cancel.abortReason;
    const deadline = waitSeconds === null ? null : Date.now() + (waitSeconds + PROMPT_GRACE_SECONDS) * 1000;
    const answer = this.broker.wait(interactionId);
    await this.store.openInteraction(execution.id, interactionId, { prompt, status: 'open', deadline });
    execution.publish({ kind: 'interaction_required', interactionId, prompt });

    const giveUp = async (status: 'expired' | 'cancelled', reason: unknown) => {
      // Compare-and-set: if an answer won the race, it is being delivered and the wait goes on.
      if ((await this.store.closeInteraction(execution.id, interactionId, status)) === 'closed') {
        this.broker.abandon(interactionId, reason);
      }
    };
    const timer =
      deadline === null
        ? undefined
        : setTimeout(
            () => void giveUp('expired', new PromptTimeoutError(waitSeconds!)),
            deadline - Date.now(),
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

  /** A person's answer: validated against the prompt, accepted once, then handed to the waiting workflow. */
  async respond(identity: Identity, executionId: string, interactionId: string, raw: unknown): Promise<void> {
    const record = await this.store.get(executionId);
    if (!record || !ownedBy(record, identity)) throw executionNotFound(executionId);
    const interaction = record.interactions[interactionId];
    if (!interaction) {
      throw new AppError(
        ErrorCode.NotFound,
        `Interaction ${interactionId} not found for execution ${executionId}`,
      );
    }
    if (interaction.status !== 'open') throw alreadyResolved(interactionId);
    let answer: PromptAnswer;
    try {
      answer = normalizeAnswer(interaction.prompt, raw);
    } catch (err) {
      if (!(err instanceof AnswerMismatch)) throw err;
      throw AppError.validation([
        { type: 'value_error', loc: ['body', 'response'], msg: err.message, input: raw },
      ]);
    }
    if ((await this.store.closeInteraction(executionId, interactionId, 'resolved')) !== 'closed') {
      throw alreadyResolved(interactionId);
    }
    await this.broker.deliver(interactionId, answer);
  }
}

function alreadyResolved(interactionId: string): AppError {
  return new AppError(ErrorCode.AlreadyResolved, `Interaction ${interactionId} has already been resolved`);
}
