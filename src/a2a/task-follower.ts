import type { StreamResponse } from '@a2a-js/sdk';
import type { Execution } from '../executions/model/execution';
import type { ExecutionRecord } from '../executions/model/execution-record';
import type { ExecutionEvent } from '../runtime/execution-event';
import type { TaskProjection } from './task-projection';

/**
 * Where following a task begins to count. `new`: a task just started, every event counts (its stream
 * shows the task submitted, then each event). `replayed`: the task's log is this process's own, whose
 * events so far replay at once inside `subscribe`: they only bring the projection up to date, and the
 * stream opens with the task as it then stands. A function: the events replay later (another replica's
 * log, read from the shared store) and this marks the one where catching up ends; the stream opens with
 * the task as it stands `before` that event is applied, or `after` it.
 */
export type FollowFrom = 'new' | 'replayed' | ((event: ExecutionEvent) => 'before' | 'after' | undefined);

/**
 * Follows an execution's events into a task projection from the moment it is made (so nothing that
 * happens after, such as the workflow going on once answered, is missed) and hands out the stream
 * updates they make, the task itself first, until the task settles (terminal, or waiting for input).
 */
export class TaskFollower {
  private readonly queue: StreamResponse[] = [];
  private wake?: () => void;
  private ended = false;
  private live: boolean;
  private readonly unsubscribe: () => void;

  constructor(
    events: Execution['events'],
    readonly projection: TaskProjection,
    from: FollowFrom,
  ) {
    this.live = from === 'new';
    if (this.live) this.queue.push(...projection.begin());
    const marker = typeof from === 'function' ? from : undefined;
    this.unsubscribe = events.subscribe((event) => {
      if (this.ended) return;
      if (this.live) return this.take(projection.apply(event));
      const at = marker?.(event);
      if (at === 'before') this.open();
      const updates = projection.apply(event);
      if (at === 'after') this.open();
      else if (at === 'before') this.take(updates);
    }, 0);
    if (from === 'replayed') this.open();
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
    this.unsubscribe?.();
    this.wake?.();
  }

  /** Caught up: the stream opens with the task as it now stands. */
  private open(): void {
    this.live = true;
    this.queue.push({ payload: { $case: 'task', value: this.projection.task() } });
    this.wake?.();
  }

  private take(updates: StreamResponse[]): void {
    this.queue.push(...updates);
    if (this.projection.settled) this.ended = true;
    this.wake?.();
  }
}

/** The event a record's state was reached at (`after` it the task stands as the record says). */
export function standingAt(record: Readonly<ExecutionRecord>): FollowFrom {
  const open = record.openInteractionId;
  if (open)
    return (e) => (e.kind === 'interaction_required' && e.interactionId === open ? 'after' : undefined);
  const authUrl = record.oauth?.authUrl;
  if (record.status === 'oauth_required' && authUrl) {
    return (e) => (e.kind === 'oauth_required' && e.authUrl === authUrl ? 'after' : undefined);
  }
  // Running: after the last wait that closed, if any (a record keeps its interactions in order).
  const last = Object.keys(record.interactions).at(-1);
  if (last)
    return (e) => (e.kind === 'interaction_resolved' && e.interactionId === last ? 'after' : undefined);
  return 'new';
}
