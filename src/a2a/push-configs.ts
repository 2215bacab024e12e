import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { ExecutionService } from '../executions/engine/execution.service';
import type { A2aCaller } from './a2a-caller';
import { A2aTaskStore, MAX_PUSH_CONFIGS, type StoredPushConfig } from './a2a-task-store';
import { ownTask } from './task-access';
import { TaskPushes } from './task-pushes';

/** An HTTP auth scheme is a token (RFC 9110 §5.6.2); credentials are one header line. */
const SCHEME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Text that fits one header line: no control characters (CR and LF would split the request). */
const oneLine = (s: string) => ![...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);

/**
 * A task's push-notification configs, for its owner only (another identity's task is not found): the
 * A2A push-notification config methods, and the config a `SendMessage` carries. Checked when set (URL
 * allowed, credentials that fit one header), stored for every replica.
 */
@Injectable()
export class PushConfigs {
  constructor(
    private readonly executions: ExecutionService,
    private readonly store: A2aTaskStore,
    private readonly pushes: TaskPushes,
  ) {}

  /** `CreateTaskPushNotificationConfig`. */
  async create(caller: A2aCaller, params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    await ownTask(this.executions, caller, params.taskId);
    return this.save(params.taskId, this.accept(params));
  }

  /** `GetTaskPushNotificationConfig`. */
  async get(
    caller: A2aCaller,
    { taskId, id }: GetTaskPushNotificationConfigRequest,
  ): Promise<TaskPushNotificationConfig> {
    await ownTask(this.executions, caller, taskId);
    const config = (await this.store.pushConfigs(taskId)).find((c) => c.id === id);
    if (!config) throw new TaskNotFoundError(`Push notification config ${id} not found for task ${taskId}`);
    return wireOf(taskId, config);
  }

  /** `ListTaskPushNotificationConfigs`. */
  async list(
    caller: A2aCaller,
    { taskId }: ListTaskPushNotificationConfigsRequest,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    await ownTask(this.executions, caller, taskId);
    const configs = await this.store.pushConfigs(taskId);
    return { configs: configs.map((c) => wireOf(taskId, c)), nextPageToken: '' };
  }

  /** `DeleteTaskPushNotificationConfig`: deleting one the task does not have is not an error (as the SDK's own handler does). */
  async delete(caller: A2aCaller, { taskId, id }: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    await ownTask(this.executions, caller, taskId);
    await this.store.deletePushConfig(taskId, id);
  }

  /** The config as it will be stored, or why it is refused (-32602). */
  accept(config: TaskPushNotificationConfig): StoredPushConfig {
    const fail = (why: string) => new RequestMalformedError(`Push notification config: ${why}`);
    if (typeof config.url !== 'string' || config.url === '') throw fail('url is required');
    if (config.url.length > 2048) throw fail('url is longer than 2048 characters');
    const problem = this.pushes.problem(config.url);
    if (problem) throw fail(problem);
    const id = config.id || randomUUID();
    if (id.length > 200 || !oneLine(id)) throw fail('id must be one line of at most 200 characters');
    const token = config.token ?? '';
    if (token.length > 1024 || !oneLine(token))
      throw fail('token must be one line of at most 1024 characters');
    const stored: StoredPushConfig = { id, url: config.url, token };
    const auth = config.authentication;
    if (auth && (auth.scheme || auth.credentials)) {
      if (!SCHEME.test(auth.scheme))
        throw fail('authentication.scheme must be an HTTP auth scheme (e.g. Bearer)');
      if (auth.credentials.length > 4096 || !oneLine(auth.credentials)) {
        throw fail('authentication.credentials must be one line of at most 4096 characters');
      }
      stored.authentication = { scheme: auth.scheme, credentials: auth.credentials };
    }
    if ((stored.token || stored.authentication?.credentials) && !this.store.keepsSecrets) {
      throw new UnsupportedOperationError(
        'Push notification configs with credentials or a token need the server’s key to store them sealed; ' +
          'this server has none (general.executions.token_key_env)',
      );
    }
    return stored;
  }

  /** Stores a config the caller may set on the task (checked by `accept`). */
  async save(taskId: string, config: StoredPushConfig): Promise<TaskPushNotificationConfig> {
    if (!(await this.store.savePushConfig(taskId, config))) {
      throw new RequestMalformedError(
        `Task ${taskId} already has ${MAX_PUSH_CONFIGS} push notification configs`,
      );
    }
    return wireOf(taskId, config);
  }
}

/**
 * A config as a client reads it back: the credentials are never sent back (A2A leaves them optional;
 * the scheme says which are in use), so a stolen session or a log of answers does not hold them.
 */
function wireOf(taskId: string, config: StoredPushConfig): TaskPushNotificationConfig {
  const auth = config.authentication;
  return {
    tenant: '',
    id: config.id,
    taskId,
    url: config.url,
    token: config.token,
    authentication: auth && { scheme: auth.scheme, credentials: '' },
  };
}
