import type { StreamResponse } from '@a2a-js/sdk';
import type { Execution } from '../executions/model/execution';
import type { TaskProjection } from './task-projection';

/**
 * Follows an execution's events into a task projection from the moment it is made (so nothing that
 * happens after, such as the workflow going on once answered, is missed) and hands out the stream
 * updates they make, the task itself first, until the task settles (terminal, or waiting for input).
 *
 * A new task's events all count (its stream shows the task submitted, then each of them). An existing
 * task's events so far only bring the projection up to date (a log this process holds replays them at
 * once); its stream opens with the task as it then stands.
 */
export class TaskFollower {
  private readonly queue: StreamResponse[] = [];
  private wake?: () => void;
  private ended = false;
  private readonly unsubscribe: () => void;

  constructor(
    events: Execution['events'],
    readonly projection: TaskProjection,
    task: 'new' | 'existing',
  ) {
    let live = task === 'new';
    if (live) this.queue.push(...projection.begin());
    this.unsubscribe = events.subscribe((event) => {
      if (this.ended) return;
      const updates = projection.apply(event);
      if (!live) return;
      this.queue.push(...updates);
      if (projection.settled) this.ended = true;
      this.wake?.();
    }, 0);
    if (!live) this.queue.push({ payload: { $case: 'task', value: projection.task() } });
    live = true;
  }

  /** The updates, in order, until the task settles or the caller stops reading. */
  async *updates(): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      for (;;) {
        while (this.queue.length > 0) yield this.queue.shift()!;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
      }
    } finally {
      this.close();
    }
  }

  close(): void {
    this.ended = true;
    this.unsubscribe();
    this.wake?.();
  }
}
