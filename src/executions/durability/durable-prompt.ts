import { randomUUID } from 'node:crypto';
import type { InteractionRecord } from '../../interactions/interaction-record';
import type { Prompt, PromptAnswer } from '../../runtime/prompts';
import type { PromptPoints } from '../../runtime/workflow-runner';

/** What a durable prompt needs of the run that asks (the engine's sink implements it). */
export interface PromptingRun {
  /** Whether the route that started the run may ask a person. */
  readonly interactive: boolean;
  /** Asks a person, under `interactionId` when it is known. */
  ask(prompt: Prompt, interactionId: string | undefined): Promise<PromptAnswer>;
  /** The interaction as the shared record holds it now. */
  recorded(interactionId: string): Promise<InteractionRecord | undefined>;
  /**
   * Waits again on an interaction the record has open (what is left of its deadline), its
   * `interaction_required` in the log once: published unless the log holds it already.
   */
  askAgain(prompt: Prompt, interactionId: string): Promise<PromptAnswer>;
}

/**
 * A durable run's prompt: the interaction's id is journaled before anyone is asked, and the answer
 * before the workflow sees it. A replay past the answer returns it; a replay that reaches an
 * interaction the record still has open waits on it again (same id, what is left of its deadline; its
 * `interaction_required` published only if the log lacks it: a replica can stop between recording
 * the wait and publishing it); one answered meanwhile (the answer is in the record) goes on at once.
 */
export async function durablePrompt(
  run: PromptingRun,
  prompt: Prompt,
  interactionId: string | undefined,
  points: PromptPoints,
): Promise<PromptAnswer> {
  if (points.answer.recorded) return points.answer.recorded.value as PromptAnswer;
  // Shown, never waited on: nothing to journal.
  if (!run.interactive || prompt.input_type === 'notification') {
    return run.ask(prompt, interactionId);
  }
  const recorded = points.interaction.recorded;
  const id = recorded
    ? (recorded.value as string)
    : ((await points.interaction.record(interactionId ?? randomUUID())) as string);
  const opened = recorded && (await run.recorded(id));
  const answer = await (opened ? run.askAgain(prompt, id) : run.ask(prompt, id));
  await points.answer.record(answer);
  return answer;
}
