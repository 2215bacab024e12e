import { Message } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { AppError, ErrorCode } from '../core/errors/app-error';
import type { ExecutionService } from '../executions/engine/execution.service';
import type { ExecutionRecord } from '../executions/model/execution-record';
import type { ExecutionUrls } from '../http-responders/execution-urls';
import { AnswerMismatch } from '../runtime/prompts';
import { A2aCaller } from './a2a-caller';
import { TaskProjection, type A2aFaceOptions } from './task-projection';

/** The face name an A2A task's execution record keeps. */
export const A2A_FACE = 'a2a';

export function callerOf(context: ServerCallContext): A2aCaller {
  const user = context.user;
  // Every call comes through A2aController, which hands the SDK the caller it resolved.
  if (!(user instanceof A2aCaller)) throw new Error('A2A call without a resolved caller');
  return user;
}

/** Engine errors as the A2A errors the SDK turns into JSON-RPC codes. */
export function a2aError(err: unknown, taskId: string): unknown {
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

export function faceOptionsOf(record: Readonly<ExecutionRecord>): A2aFaceOptions | undefined {
  return record.face?.name === A2A_FACE ? (record.face.options as A2aFaceOptions) : undefined;
}

/**
 * The caller's task's record: another identity's task, or an execution no A2A client started, is not
 * found (-32001).
 */
export async function ownTask(
  executions: ExecutionService,
  caller: A2aCaller,
  taskId: string,
): Promise<Readonly<ExecutionRecord>> {
  let record: Readonly<ExecutionRecord>;
  try {
    record = await executions.record(caller.identity, taskId);
  } catch (err) {
    throw a2aError(err, taskId);
  }
  if (!faceOptionsOf(record)) throw new TaskNotFoundError(`Task not found: ${taskId}`);
  return record;
}

/** The task an A2A execution's record describes, as it was first sent (to seed or feed with events). */
export function projectionOf(record: Readonly<ExecutionRecord>, urls: ExecutionUrls): TaskProjection {
  const { contextId, message } = faceOptionsOf(record)!;
  const ids = { taskId: record.id, contextId };
  return new TaskProjection(ids, { ...Message.fromJSON(message), ...ids }, urls);
}
