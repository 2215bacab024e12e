import { Injectable, Logger } from '@nestjs/common';
import { OnEvent } from '@nestjs/event-emitter';
import { Message } from '@a2a-js/sdk';
import { ServerConfig } from '../config/server-config';
import { ExecutionTakenOver } from '../core/events/execution-events';
import { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { ExecutionStore } from '../executions/store/execution.store';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { messageInput } from './message-input';
import { faceOptionsOf, projectionOf } from './task-access';
import { TaskContexts } from './task-contexts';
import type { TaskProjection } from './task-projection';
import { TaskPushes } from './task-pushes';
import { watchTask } from './task-watch';

/** A task as its watch needs it: who owns it, its context, the user's text that started it. */
export interface WatchedTask {
  ownerId: string | null;
  contextId: string;
  /** The server made the context id for this task (the message that started it named none). */
  contextIssued: boolean;
  text: string;
}

/**
 * What the replica running a task does with its updates, whoever asked for them: its push-notification
 * configs hear each one, its context remembers it once it completes. The replica that starts a task
 * watches it; when another replica takes the execution over (the first one died, or handed it over
 * as it stopped), that one watches it from there on, reading the configs from the shared store.
 */
@Injectable()
export class TaskWatchers {
  private readonly logger = new Logger('A2aTasks');
  private readonly urls: ExecutionUrls;

  constructor(
    private readonly executions: ExecutionService,
    private readonly records: ExecutionStore,
    private readonly config: ServerConfig,
    private readonly pushes: TaskPushes,
    private readonly contexts: TaskContexts,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
  }

  /** A task this process has just started, from its start. */
  started(execution: Execution, projection: TaskProjection, task: WatchedTask): void {
    this.watch(execution, projection, task, true);
  }

  @OnEvent(ExecutionTakenOver.event)
  takenOver({ executionId }: ExecutionTakenOver): void {
    const execution = this.executions.find(executionId);
    if (!execution) return;
    // Read before the run goes on here: nothing in the log yet, nobody ran it (a start handed over at once).
    const fresh = execution.events.appendedSeq === 0;
    this.resume(execution, fresh).catch((err: Error) =>
      this.logger.warn(`Task ${executionId} taken over: its updates go unheard (${err.message})`),
    );
  }

  private async resume(execution: Execution, fresh: boolean): Promise<void> {
    const record = await this.records.get(execution.id);
    const options = record && faceOptionsOf(record);
    // Ended already (a replay that finished before this read): its end is in the log here all the same.
    if (!record || !options) return;
    const projection = projectionOf(record, this.urls);
    if (!fresh) projection.seed(record);
    const task = {
      ownerId: record.ownerId,
      contextId: options.contextId,
      contextIssued: !Message.fromJSON(options.message).contextId,
      text: this.textOf(record),
    };
    // The log here holds every event since the takeover: subscribing now misses none.
    this.watch(execution, projection, task, fresh);
  }

  private watch(execution: Execution, projection: TaskProjection, task: WatchedTask, fresh: boolean): void {
    const taskId = execution.id;
    watchTask(
      execution.events,
      projection,
      {
        update: (update) => this.pushes.notify(taskId, update),
        completed: (answer) =>
          this.contexts.completed(
            { userId: task.ownerId },
            task.contextId,
            { taskId, user: task.text, answer },
            task.contextIssued,
          ),
      },
      fresh,
    );
  }

  /** The user's text of the message that started the task (what its context remembers). */
  private textOf(record: Readonly<ExecutionRecord>): string {
    const message = Message.fromJSON(faceOptionsOf(record)!.message);
    try {
      return messageInput(message, this.config.workflow).text;
    } catch {
      // The workflow changed since (it refuses the message now): the takeover refuses the run anyway.
      return '';
    }
  }
}
