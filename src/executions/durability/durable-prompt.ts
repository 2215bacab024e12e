import { randomUUID } from 'node:crypto';
import type { InteractionRecord } from '../../interactions/interaction-record';
import type { Prompt, PromptAnswer } from '../../runtime/prompts';
import type { PromptPoints } from '../../runtime/workflow-runner';
import type { JournalEntry } from '../../runtime/run-journal';
import type { ExecutionRecord } from '../model/execution-record';

/** What a durable prompt needs of the run that asks (the engine's sink implements it). */
export interface PromptingRun {
  /** Whether the route that started the run may ask a person. */
  readonly interactive: boolean;
  /**
   * Asks a person, under `interactionId` when it is known; `point`: the run's journal point, recorded
   * with the interaction (and the log's seq then) for a replica that takes the run over.
   */
  ask(prompt: Prompt, interactionId: string | undefined, point?: string): Promise<PromptAnswer>;
  /** The interaction as the shared record holds it now. */
  recorded(interactionId: string): Promise<InteractionRecord | undefined>;
  /**
   * Waits again on an interaction the record holds: one still open for what is left of its deadline,
   * one closed comes to its outcome (the answer the record keeps, or the timeout); its events are in
   * the log once (published unless the log holds them already).
   */
  askAgain(prompt: Prompt, interactionId: string): Promise<PromptAnswer>;
}

/**
 * A durable run's prompt, journaled in the execution's record rather than in journal rows: the
 * interaction is recorded with its journal point (and the log's seq then), and its answer is kept there
 * by the replica that accepts it, before the 204; a replica taking the run over reads both back as
 * journal entries (`promptEntries`). A replay that reaches an interaction the record holds waits on it
 * again while it is open (same id, what is left of its deadline) or goes on with its outcome; its
 * `interaction_required` and `interaction_resolved` are published only if the log lacks them (a replica
 * can stop between recording the wait and publishing it). A journal written when prompts had rows of
 * their own holds the id and the answer, used as they are.
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
  const id = recorded ? (recorded.value as string) : (interactionId ?? randomUUID());
  const opened = recorded && (await run.recorded(id));
  return opened ? run.askAgain(prompt, id) : run.ask(prompt, id, points.interaction.key);
}

/**
 * The journal entries a run's record holds: each interaction a durable run opened, at its point, with
 * the log's seq when it was opened (its answer, when it has one, is read from the record by the replay).
 */
export function promptEntries(record: Pick<ExecutionRecord, 'interactions'>): JournalEntry[] {
  const entries: JournalEntry[] = [];
  for (const [id, interaction] of Object.entries(record.interactions)) {
    const at = interaction.at;
    if (at) entries.push({ point: at.point, kind: 'interaction', value: id, seq: at.seq });
  }
  return entries;
}
