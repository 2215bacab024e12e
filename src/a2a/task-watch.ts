import { TaskState, type StreamResponse } from '@a2a-js/sdk';
import type { Execution } from '../executions/model/execution';
import type { TaskProjection } from './task-projection';

export interface TaskWatcher {
  /** A push-worthy update: each status change, and the whole output before the task completes. */
  update(update: StreamResponse): void;
  /** The task completed with this answer text. */
  completed(answer: string): void;
}

/**
 * Follows a task this process runs until it ends, whoever watches it (a blocking send, a stream, or
 * nobody once the client returned): what its push-notification configs and its context hear of it.
 * Output chunks are not pushed one by one: the output goes once, whole, before the final status.
 * `fresh`: the task just started (its first `working` status is an update); else it was taken over
 * from another replica, `projection` seeded where the record says it stands, and `events` holds only
 * what happens from then on.
 */
export function watchTask(
  events: Execution['events'],
  projection: TaskProjection,
  watcher: TaskWatcher,
  fresh = true,
): void {
  let done = false;
  const begun = fresh ? projection.begin() : [];
  for (const update of begun) if (update.payload?.$case === 'statusUpdate') watcher.update(update);
  let unsubscribe = (): void => undefined;
  unsubscribe = events.subscribe((event) => {
    if (done) return;
    for (const update of projection.apply(event)) {
      if (update.payload?.$case !== 'statusUpdate') continue;
      if (update.payload.value.status?.state === TaskState.TASK_STATE_COMPLETED) {
        const output = projection.wholeOutput();
        if (output) watcher.update(output);
        watcher.completed(projection.outputText());
      }
      watcher.update(update);
    }
    if (projection.terminal) {
      done = true;
      unsubscribe();
    }
  }, 0);
  // A log that replays at once may have ended the task before `subscribe` returned.
  if (done) unsubscribe();
}
