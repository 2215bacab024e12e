import { AppError, ErrorCode } from '../../core/errors/app-error';
import type { Identity } from '../../core/identity/identity';
import type { ExecutionRecord } from '../model/execution-record';

/** Another identity gets 404 for an execution, never 403, so ids leak nothing. */
export function ownedBy(record: ExecutionRecord, identity: Identity): boolean {
  return record.ownerId === null || record.ownerId === identity.userId;
}

export function executionNotFound(id: string): AppError {
  return new AppError(ErrorCode.NotFound, `Execution ${id} not found`);
}
