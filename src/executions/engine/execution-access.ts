import { AppError, ErrorCode } from '../../core/errors/app-error';
import type { Identity } from '../../core/identity/identity';
import type { ExecutionRecord } from '../model/execution-record';
import type { ExecutionStore } from '../store/execution.store';

/** Another identity gets 404 for an execution, never 403, so ids leak nothing. */
export function ownedBy(record: ExecutionRecord, identity: Identity): boolean {
  return record.ownerId === null || record.ownerId === identity.userId;
}

export function executionNotFound(id: string): AppError {
  return new AppError(ErrorCode.NotFound, `Execution ${id} not found`);
}

/**
 * The record as the store holds it now, for its owner: what a cancel acts on (a poll may be served a
 * copy another replica's change has not reached yet; this may not).
 */
export async function currentRecord(
  store: ExecutionStore,
  identity: Identity,
  id: string,
): Promise<ExecutionRecord> {
  const record = await store.get(id);
  if (!record || !ownedBy(record, identity)) throw executionNotFound(id);
  return record;
}

/**
 * What an answer to `interactionId` is checked against: the record as this replica knows it when that
 * has the prompt open (the close is a compare-and-set, so a copy out of date costs a second try, never
 * a wrong answer), else as the store holds it now (so a refusal is the store's word).
 */
export async function answeredRecord(
  store: ExecutionStore,
  identity: Identity,
  id: string,
  interactionId: string,
): Promise<Readonly<ExecutionRecord>> {
  const known = store.recent(id);
  const open = known && ownedBy(known, identity) && known.interactions[interactionId]?.status === 'open';
  return open ? known : currentRecord(store, identity, id);
}
