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
import { InteractionBroker } from './interaction.broker';
import { OpenPrompt } from './open-prompt';
import { PromptDeadlines } from './prompt-deadlines';
import type { InteractionRecord, InteractionWait, WaitOutcome } from './interaction-record';

/** The execution a prompt belongs to, as the engine hands it over: it records the waits asked here. */
export interface AskingExecution {
  id: string;
  publish(event: ExecutionEventBody): void;
  record(wait: InteractionWait): Promise<WaitOutcome>;
  /** The interaction as the shared record holds it now (shared stores only). */
  recorded?(interactionId: string): Promise<InteractionRecord | undefined>;
  /** Called as a wait starts (`ask`, `resume`) and once as it ends, however it ends. */
  waitStarted?(): void;
  waitEnded?(): void;
}

/** The rendezvous between a workflow asking and a person answering, whichever face the answer uses. */
@Injectable()
export class InteractionService {
  /** Every open prompt's deadline, behind one timer. */
  private readonly deadlines = new PromptDeadlines();

  constructor(private readonly broker: InteractionBroker) {}

  /**
   * Asks a person and waits (without blocking anything) for the answer, the deadline or a cancel. Not
   * an async function: a waiting execution holds an OpenPrompt and its promise, no suspended frame.
   */
  ask(
    execution: AskingExecution,
    prompt: Prompt,
    cancel: AbortWatch,
    interactionId: string = randomUUID(),
    /** How long to wait when the prompt has no timeout of its own (null: for ever). */
    waitSeconds: number | null = prompt.timeout,
    /** Where a durable run asks it (recorded with the interaction). */
    at?: InteractionRecord['at'],
  ): Promise<PromptAnswer> {
    execution.waitStarted?.();
    if (prompt.input_type === 'notification') {
      return notify(execution, prompt, interactionId).finally(() => execution.waitEnded?.());
    }
    if (cancel.aborted) {
      execution.waitEnded?.();
      return Promise.reject(cancel.abortReason as Error);
    }
    const deadline = waitSeconds === null ? null : Date.now() + (waitSeconds + PROMPT_GRACE_SECONDS) * 1000;
    const { wait, answer } = OpenPrompt.listen(this.broker, this.deadlines, execution, interactionId, cancel);
    const interaction: InteractionRecord = { prompt, status: 'open', deadline, ...(at && { at }) };
    execution
      .record({ kind: 'interaction_opened', interactionId, interaction })
      .then(() => {
        execution.publish({ kind: 'interaction_required', interactionId, prompt });
        wait.arm(deadline, waitSeconds);
      })
      .catch((err: unknown) => this.broker.abandon(interactionId, err));
    return answer;
  }

  /**
   * Waits again on an interaction a replica that is gone opened (durable executions): the same id,
   * what is left of its deadline, no second `interaction_required`. The record is read once the broker
   * surely hears this wait's wake-ups, so an answer accepted at any moment is seen once: in the record,
   * or as a wake-up.
   */
  resume(
    execution: AskingExecution,
    interactionId: string,
    read: () => Promise<InteractionRecord | undefined>,
    cancel: AbortWatch,
  ): Promise<PromptAnswer> {
    execution.waitStarted?.();
    const { wait, answer, listening } = OpenPrompt.listen(
      this.broker,
      this.deadlines,
      execution,
      interactionId,
      cancel,
    );
    listening.then(read).then(
      (interaction) => {
        if (interaction?.status === 'open') return wait.arm(interaction.deadline, interaction.prompt.timeout);
        wait.settleWith(() => settled(execution, interactionId, interaction));
        this.broker.abandon(interactionId, new Error('not waiting'));
      },
      (err: unknown) => this.broker.abandon(interactionId, err),
    );
    return answer;
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
    let answer: PromptAnswer;
    try {
      answer = normalizeAnswer(interaction.prompt, raw);
    } catch (err) {
      if (!(err instanceof AnswerMismatch)) throw err;
      throw AppError.validation([
        { type: 'value_error', loc: ['body', 'response'], msg: err.message, input: raw },
      ]);
    }
    this.checkDeliverable(answer);
    return answer;
  }

  /** 413 for an answer larger than a wake-up carries to another replica: never accepted, then lost. */
  private checkDeliverable(answer: PromptAnswer): void {
    const max = this.broker.maxAnswerChars;
    if (max === undefined) return;
    const chars = JSON.stringify(answer).length;
    if (chars <= max) return;
    throw new AppError(
      ErrorCode.PayloadTooLarge,
      `The answer is ${chars.toLocaleString('en-US')} characters of JSON; at most ${max.toLocaleString('en-US')} characters are accepted here`,
    );
  }

  /** Hands an accepted answer (its wait already closed) to the workflow waiting for it. */
  deliver(executionId: string, interactionId: string, answer: PromptAnswer): Promise<void> {
    return this.broker.deliver(executionId, interactionId, answer);
  }
}

/** A notification is acknowledged at once: shown to the person, never waited on. */
async function notify(
  execution: AskingExecution,
  prompt: Prompt,
  interactionId: string,
): Promise<PromptAnswer> {
  const interaction = { prompt, status: 'open' as const, deadline: null };
  await execution.record({ kind: 'interaction_opened', interactionId, interaction });
  await execution.record({ kind: 'interaction_closed', interactionId, status: 'resolved' });
  execution.publish({ kind: 'interaction_required', interactionId, prompt });
  execution.publish({ kind: 'interaction_resolved', interactionId, response: { type: 'notification' } });
  return { type: 'notification' };
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
