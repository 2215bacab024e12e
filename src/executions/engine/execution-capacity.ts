import { AppError, ErrorCode } from '../../core/errors/app-error';
import type { Identity } from '../../core/identity/identity';
import type { GeneralConfig } from '../../config/config.schema';
import type { ExecutionStore } from '../store/execution.store';

/** Counts under half their limit may be a second old (waiting-counts.ts): only near it must they be exact. */
const half = (limit: number) => Math.floor(limit / 2);

/**
 * Room for one more execution that may wait for a person: in total, for the caller, for anonymous
 * callers together (so they cannot take identified users' places), and per client address for callers
 * nothing verified (so minting identities, e.g. rotating cookies, does not multiply one client's
 * allowance). Verified users keep only their own limit: many of them may share one corporate address.
 */
export async function checkCapacity(
  store: ExecutionStore,
  general: GeneralConfig,
  identity: Identity,
  clientAddress: string | undefined,
): Promise<void> {
  const tooMany = (message: string) =>
    new AppError(ErrorCode.TooManyWaiting, message, { headers: { 'Retry-After': '30' } });
  if (
    (await store.countWaiting(undefined, half(general.max_waiting_executions))) >=
    general.max_waiting_executions
  ) {
    throw tooMany(
      `Too many executions are waiting for a person (${general.max_waiting_executions}); try again later.`,
    );
  }
  const anonymous = identity.userId === null;
  if (
    anonymous &&
    (await store.countWaiting(null, half(general.max_anonymous_waiting_executions))) >=
      general.max_anonymous_waiting_executions
  ) {
    throw tooMany(
      `Too many anonymous executions are waiting for a person (general.max_anonymous_waiting_executions: ${general.max_anonymous_waiting_executions}); sign in or try again later.`,
    );
  }
  const perUser = general.max_waiting_executions_per_user;
  if (!anonymous && (await store.countWaiting(identity.userId, half(perUser))) >= perUser) {
    throw tooMany(`You have ${perUser} executions waiting for an answer; answer or cancel some first.`);
  }
  const perAddress = general.max_waiting_executions_per_address;
  if (
    !identity.verified &&
    clientAddress !== undefined &&
    (await store.countWaitingFrom(clientAddress, half(perAddress))) >= perAddress
  ) {
    throw tooMany(
      `Too many executions started from your address are waiting for a person (general.max_waiting_executions_per_address: ${perAddress}); answer or cancel some first.`,
    );
  }
}
