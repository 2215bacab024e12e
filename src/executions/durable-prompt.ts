import { randomUUID } from 'node:crypto';
import type { ExecutionEventBody } from '../runtime/execution-event';
import type { InteractionWait } from '../interactions/interaction-record';
import type { Prompt, PromptAnswer } from '../runtime/prompts';
import type { PromptPoints } from '../runtime/workflow-runner';
import type { AskPerson, RouteFacts, WaitDeps, WaitingEntry } from './execution-sink';

/**
 * A durable run's prompt: the interaction's id is journaled before anyone is asked, and the answer
 * before the workflow sees it. A replay past the answer returns it; a replay that reaches an
 * interaction the record still has open waits on it again (same id, what is left of its deadline,
 * no second `interaction_required`); one answered meanwhile (the answer is in the record) goes on at once.
 */
export async function durablePrompt(
  entry: WaitingEntry,
  prompt: Prompt,
  interactionId: string | undefined,
  points: PromptPoints,
  publish: (event: ExecutionEventBody) => void,
  options: RouteFacts,
  deps: WaitDeps,
  ask: AskPerson,
): Promise<PromptAnswer> {
  if (points.answer.recorded) return points.answer.recorded.value as PromptAnswer;
  // Shown, never waited on: nothing to journal.
  if (!options.interactive || prompt.input_type === 'notification') {
    return ask(entry, prompt, interactionId, publish, options, deps);
  }
  const recorded = points.interaction.recorded;
  const id = recorded
    ? (recorded.value as string)
    : ((await points.interaction.record(interactionId ?? randomUUID())) as string);
  const executionId = entry.execution.id;
  const opened = recorded && (await deps.read(executionId, id));
  let answer: PromptAnswer;
  if (opened) {
    entry.waiting++;
    try {
      const record = (wait: InteractionWait) => deps.record(executionId, wait);
      const execution = { id: executionId, publish, record };
      answer = await deps.interactions.resume(execution, id, () => deps.read(executionId, id), entry.abort);
    } finally {
      entry.waiting--;
    }
  } else {
    answer = await ask(entry, prompt, id, publish, options, deps);
  }
  await points.answer.record(answer);
  return answer;
}
