import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { Message, TaskState, type AgentCard, type StreamResponse, type Task } from '@a2a-js/sdk';
import {
  ExtendedAgentCardNotConfiguredError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  ListTaskPushNotificationConfigsResponse,
} from '@a2a-js/sdk';
import { AppError, ErrorCode } from '../core/errors/app-error';
import { ServerConfig } from '../config/server-config';
import { ExecutionService } from '../executions/engine/execution.service';
import type { Execution } from '../executions/model/execution';
import type { ExecutionRecord } from '../executions/model/execution-record';
import { isTerminalStatus } from '../executions/model/execution-state';
import { ExecutionUrls } from '../http-responders/execution-urls';
import { AnswerMismatch } from '../runtime/prompts';
import { A2aCaller } from './a2a-caller';
import { messageText } from './a2a-parts';
import { A2aCard } from './a2a-card';
import { answerOf } from './task-answers';
import { TaskFollower } from './task-follower';
import { TaskProjection, type A2aFaceOptions } from './task-projection';

export const A2A_FACE = 'a2a';

function callerOf(context: ServerCallContext): A2aCaller {
  const user = context.user;
  // Every call comes through A2aController, which hands the SDK the caller it resolved.
  if (!(user instanceof A2aCaller)) throw new Error('A2A call without a resolved caller');
  return user;
}

/** Engine errors as the A2A errors the SDK turns into JSON-RPC codes. */
function a2aError(err: unknown, taskId: string): unknown {
  if (err instanceof AnswerMismatch) return new RequestMalformedError(err.message);
  if (!(err instanceof AppError)) return err;
  switch (err.code) {
    case ErrorCode.NotFound:
      return new TaskNotFoundError(`Task not found: ${taskId}`);
    case ErrorCode.ValidationFailed:
      return new RequestMalformedError(err.extra.issues?.map((i) => i.msg).join('; ') || err.message);
    case ErrorCode.AlreadyResolved:
      return new UnsupportedOperationError(`Task ${taskId} is no longer waiting for this answer`);
    default:
      return err;
  }
}

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
    const execution = isTerminalStatus(record.status) ? undefined : await this.executionOf(record);
    if (!execution) {
      throw new UnsupportedOperationError(`Task ${params.id} has ended: there is nothing to subscribe to`);
    }
    yield* new TaskFollower(execution.events, this.projectionFor(record), 'existing').updates();
  }

  listTasks(): Promise<ListTasksResponse> {
    return Promise.reject(new UnsupportedOperationError('ListTasks is not supported'));
  }

  createTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  getTaskPushNotificationConfig(): Promise<TaskPushNotificationConfig> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  listTaskPushNotificationConfigs(): Promise<ListTaskPushNotificationConfigsResponse> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  deleteTaskPushNotificationConfig(): Promise<void> {
    return Promise.reject(new PushNotificationNotSupportedError());
  }

  /** A message starts a task, or (naming one) answers the question it waits on. */
  private async follow(params: SendMessageRequest, caller: A2aCaller): Promise<TaskFollower> {
    const message = params.message;
    if (!message || message.parts.length === 0)
      throw new RequestMalformedError('A message with parts is required');
    return message.taskId ? this.answer(message, caller) : this.start(message, caller);
  }

  private async start(message: Message, caller: A2aCaller): Promise<TaskFollower> {
    const contextId = message.contextId || randomUUID();
    const workflow = this.config.workflow;
    const input = workflow.fromChat({ messages: [{ role: 'user', content: messageText(message) }] });
    const options: A2aFaceOptions = { contextId, message: Message.toJSON(message) };
    const execution = await this.executions.start(input, caller.identity, {
      request: caller.request,
      trace: caller.trace,
      interactive: true,
      streaming: true,
      face: { name: A2A_FACE, options },
      // The task id is handed to the client: the execution stays readable after it ends.
      beforeRun: (started) => started.expose(),
    });
    const ids = { taskId: execution.id, contextId };
    const projection = new TaskProjection(ids, { ...message, ...ids }, this.urls);
    return new TaskFollower(execution.events, projection, 'new');
  }

  private async answer(message: Message, caller: A2aCaller): Promise<TaskFollower> {
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
    const interactionId = record.openInteractionId;
    const execution = interactionId && (await this.executionOf(record));
    if (record.status !== 'interaction_required' || !interactionId || !execution) {
      throw new UnsupportedOperationError(`Task ${taskId} is not waiting for input`);
    }
    // Following before answering: what the workflow does once answered is all in the stream.
    const follower = new TaskFollower(execution.events, this.projectionFor(record), 'existing');
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
   * The caller's task: its record (another identity's, or an execution no A2A client started, is not
   * found) and the task as it stands: from the events when this process holds them, else from the record.
   */
  private async existing(
    caller: A2aCaller,
    taskId: string,
  ): Promise<{ record: Readonly<ExecutionRecord>; projection: TaskProjection }> {
    let record: Readonly<ExecutionRecord>;
    try {
      record = await this.executions.record(caller.identity, taskId);
    } catch (err) {
      throw a2aError(err, taskId);
    }
    if (!faceOptionsOf(record)) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    const projection = this.projectionFor(record);
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

  private projectionFor(record: Readonly<ExecutionRecord>): TaskProjection {
    const { contextId, message } = faceOptionsOf(record)!;
    const ids = { taskId: record.id, contextId };
    return new TaskProjection(ids, { ...Message.fromJSON(message), ...ids }, this.urls);
  }
}

function faceOptionsOf(record: Readonly<ExecutionRecord>): A2aFaceOptions | undefined {
  return record.face?.name === A2A_FACE ? (record.face.options as A2aFaceOptions) : undefined;
}

/** `historyLength`: the most recent messages only (0: none); all of them when not given. */
function limitHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
