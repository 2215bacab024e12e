import { randomUUID } from 'node:crypto';
import type { Prompt, PromptAnswer } from '../../runtime/prompts';
import type { PromptPoints } from '../../runtime/workflow-runner';
import type { EntrySink } from '../engine/execution-sink';

/**
 * A durable run's prompt: the interaction's id is journaled before anyone is asked, and the answer
 * before the workflow sees it. A replay past the answer returns it; a replay that reaches an
 * interaction the record still has open waits on it again (same id, what is left of its deadline,
 * no second `interaction_required`); one answered meanwhile (the answer is in the record) goes on at once.
 */
export async function durablePrompt(
  sink: EntrySink,
  prompt: Prompt,
  interactionId: string | undefined,
  points: PromptPoints,
): Promise<PromptAnswer> {
  if (points.answer.recorded) return points.answer.recorded.value as PromptAnswer;
  const { entry, deps, options } = sink;
  // Shown, never waited on: nothing to journal.
  if (!options.interactive || prompt.input_type === 'notification') {
    return sink.ask(prompt, interactionId);
  }
  const recorded = points.interaction.recorded;
  const id = recorded
    ? (recorded.value as string)
    : ((await points.interaction.record(interactionId ?? randomUUID())) as string);
  const executionId = entry.execution.id;
  const opened = recorded && (await deps.read(executionId, id));
  const answer = await (opened
    ? deps.interactions.resume(sink, id, () => deps.read(executionId, id), entry.abort)
    : sink.ask(prompt, id));
  await points.answer.record(answer);
  return answer;
}
