import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Message, TaskState, type AgentCard, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  RequestMalformedError,
  TaskNotCancelableError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { isTerminalStatus } from '../executions/model/execution-state';
import { ExecutionUrls } from '../http-responders/execution-urls';
import type { A2aCaller } from './a2a-caller';
import { A2aCard } from './a2a-card';
import { checkParts, messageInput } from './message-input';
import type { StoredPushConfig } from './a2a-task-store';
import { PushConfigs } from './push-configs';
import { answerOf } from './task-answers';
import { a2aError, A2A_FACE, callerOf, faceOptionsOf, ownTask, projectionOf } from './task-access';
import { TaskContexts } from './task-contexts';
import { standingAt, TaskFollower } from './task-follower';
import { TaskProjection, type A2aFaceOptions } from './task-projection';
import { TaskPushes } from './task-pushes';
import { TaskWatchers } from './task-watchers';

/** Blocking sends return once the task is settled, or waits for a person's consent (A2A: auth-required). */
const returnsAt = (p: TaskProjection) => p.settled || p.current === TaskState.TASK_STATE_AUTH_REQUIRED;

/**
 * The A2A face's request handler: a task is an execution on the shared engine (its id is the task id,
 * its owner the only caller who finds it), and the SDK's JSON-RPC transport calls these methods. The
 * SDK's DefaultRequestHandler is not used: it keeps tasks and their event buses in its own stores, so
 * a task would live on one replica and a cancel there would not stop the execution.
 */
@Injectable()
export class A2aTasks implements A2ARequestHandler {
  private readonly urls: ExecutionUrls;

  constructor(
    private readonly executions: ExecutionService,
    private readonly config: ServerConfig,
    private readonly card: A2aCard,
    private readonly pushConfigs: PushConfigs,
    private readonly pushes: TaskPushes,
    private readonly contexts: TaskContexts,
    private readonly watchers: TaskWatchers,
  ) {
    this.urls = new ExecutionUrls(config.frontEnd.root_path);
  }

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.card.forOrigin(undefined));
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError());
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const follower = await this.follow(params, callerOf(context));
    if (params.configuration?.returnImmediately) {
      follower.close();
      return follower.projection.task();
    }
    for await (const _ of follower.updates()) {
      if (returnsAt(follower.projection)) break;
    }
    return limitHistory(follower.projection.task(), params.configuration?.historyLength);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const follower = await this.follow(params, callerOf(context));
    yield* follower.updates();
  }

  async getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const { projection } = await this.existing(callerOf(context), params.id);
    return limitHistory(projection.task(), params.historyLength);
  }

  async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const caller = callerOf(context);
    const { record, projection } = await this.existing(caller, params.id);
    if (projection.current === TaskState.TASK_STATE_CANCELED) return projection.task();
    if (isTerminalStatus(record.status))
      throw new TaskNotCancelableError(`Task ${params.id} has already ended`);
    try {
      await this.executions.cancel(caller.identity, params.id);
    } catch (err) {
      if (err instanceof AppError && err.code === ErrorCode.Conflict) {
        throw new TaskNotCancelableError(`Task ${params.id} has already ended`);
      }
      throw a2aError(err, params.id);
    }
    return (await this.existing(caller, params.id)).projection.task();
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const { record } = await this.existing(callerOf(context), params.id);
    const local = this.executions.find(record.id);
    const execution = isTerminalStatus(record.status) ? undefined : await this.executionOf(record);
    if (!execution) throw taskEnded(params.id);
    // Another replica's log replays later: catching up ends at the event the record stands at.
    const from = local ? 'replayed' : standingAt(record);
    yield* new TaskFollower(execution.events, projectionOf(record, this.urls), from).updates();
  }

  listTasks(): Promise<ListTasksResponse> {
    return Promise.reject(new UnsupportedOperationError('ListTasks is not supported'));
  }

  createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.create(callerOf(context), params);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.pushConfigs.get(callerOf(context), params);
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.pushConfigs.list(callerOf(context), params);
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    return this.pushConfigs.delete(callerOf(context), params);
  }

  /**
   * Why `SubscribeToTask` cannot start, checked before the SDK opens its stream (so the caller gets a
   * plain JSON-RPC error): the task is not the caller's, or it has ended.
   */
  async subscribable(taskId: string, caller: A2aCaller): Promise<void> {
    const { record } = await this.existing(caller, taskId);
    if (isTerminalStatus(record.status)) throw taskEnded(taskId);
  }

  /** A message starts a task, or (naming one) answers the question it waits on. */
  private async follow(params: SendMessageRequest, caller: A2aCaller): Promise<TaskFollower> {
    const message = params.message;
    if (!message || message.parts.length === 0)
      throw new RequestMalformedError('A message with parts is required');
    checkParts(message);
    const given = params.configuration?.taskPushNotificationConfig;
    // Checked before anything starts: a refused config starts no task.
    const push = given && this.pushConfigs.accept(given);
    return message.taskId ? this.answer(message, caller, push) : this.start(message, caller, push);
  }

  private async start(message: Message, caller: A2aCaller, push?: StoredPushConfig): Promise<TaskFollower> {
    const contextId = message.contextId || randomUUID();
    const workflow = this.config.workflow;
    const { text, content, structured } = messageInput(message, workflow);
    const said = content ?? text;
    // Structured input is the workflow's whole input: a context's chat history has no place in it.
    const input =
      structured ??
      workflow.fromChat({
        messages: message.contextId
          ? await this.contexts.chat(caller.identity, contextId, said)
          : [{ role: 'user' as const, content: said }],
      });
    const options: A2aFaceOptions = { contextId, message: Message.toJSON(message) };
    let follower: TaskFollower | undefined;
    const started = await this.executions.start(input, caller.identity, {
      request: caller.request,
      trace: caller.trace,
      interactive: true,
      streaming: true,
      face: { name: A2A_FACE, options },
      // Followed before its workflow runs: every event is seen as it happens, none read back from a log
      // that may have given it up already to keep the process's events within their bound.
      beforeRun: (execution) => {
        // The task id is handed to the client: the execution stays readable after it ends.
        execution.expose();
        const ids = { taskId: execution.id, contextId };
        const first = { ...message, ...ids };
        if (push) this.pushes.after(ids.taskId, this.pushConfigs.save(ids.taskId, push));
        // A start handed to another replica at once (this one stops) is watched by the one that runs it.
        if (this.executions.find(ids.taskId)) {
          const task = {
            ownerId: caller.identity.userId,
            contextId,
            contextIssued: !message.contextId,
            text,
          };
          this.watchers.started(execution, new TaskProjection(ids, first, this.urls), task);
        }
        follower = new TaskFollower(execution.events, new TaskProjection(ids, first, this.urls), 'new');
      },
    });
    if (!follower) throw new Error(`Execution ${started.id} started without calling beforeRun`);
    return follower;
  }

  private async answer(message: Message, caller: A2aCaller, push?: StoredPushConfig): Promise<TaskFollower> {
    const taskId = message.taskId;
    const { record } = await this.existing(caller, taskId);
    const { contextId } = faceOptionsOf(record)!;
    if (message.contextId && message.contextId !== contextId) {
      throw new RequestMalformedError(`Task ${taskId} belongs to context ${contextId}`);
    }
    if (isTerminalStatus(record.status)) {
      throw new UnsupportedOperationError(
        `Task ${taskId} has ended; send a message without taskId to start another`,
      );
    }
    if (push) await this.pushConfigs.save(taskId, push);
    const interactionId = record.openInteractionId;
    const execution = interactionId && (await this.executionOf(record));
    if (record.status !== 'interaction_required' || !interactionId || !execution) {
      throw new UnsupportedOperationError(`Task ${taskId} is not waiting for input`);
    }
    // Following before answering: what the workflow does once answered is all in the stream.
    // The events so far bring the task up to date; the answer's own resolution opens the stream.
    const follower = new TaskFollower(execution.events, projectionOf(record, this.urls), (event) =>
      event.kind === 'interaction_resolved' && event.interactionId === interactionId ? 'before' : undefined,
    );
    try {
      const prompt = record.interactions[interactionId].prompt;
      await this.executions.respond(caller.identity, taskId, interactionId, answerOf(prompt, message));
    } catch (err) {
      follower.close();
      throw a2aError(err, taskId);
    }
    return follower;
  }

  /**
   * The caller's task: its record and the task as it stands: from the events when this process holds
   * them, else from the record.
   */
  private async existing(
    caller: A2aCaller,
    taskId: string,
  ): Promise<{ record: Readonly<ExecutionRecord>; projection: TaskProjection }> {
    const record = await ownTask(this.executions, caller, taskId);
    const projection = projectionOf(record, this.urls);
    const local = this.executions.find(taskId);
    // A log this process holds replays at once: the projection is up to date when subscribe returns.
    if (local) local.events.subscribe((event) => void projection.apply(event), 0)();
    else projection.seed(record);
    return { record, projection };
  }

  /** The execution to follow: this process's own, or one another replica runs (through the shared log). */
  private async executionOf(record: Readonly<ExecutionRecord>): Promise<Execution | undefined> {
    return this.executions.find(record.id) ?? (await this.executions.attach(record));
  }
}

function taskEnded(taskId: string): UnsupportedOperationError {
  return new UnsupportedOperationError(`Task ${taskId} has ended: there is nothing to subscribe to`);
}

/** `historyLength`: the most recent messages only (0: none); all of them when not given. */
function limitHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
