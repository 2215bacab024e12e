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
  const anonymous = identity.userId === null;
  const total = general.max_waiting_executions;
  const anonymousLimit = general.max_anonymous_waiting_executions;
  const perUser = general.max_waiting_executions_per_user;
  const perAddress = general.max_waiting_executions_per_address;
  // Read together: one wait, not one per count.
  const [all, own, fromAddress] = await Promise.all([
    store.countWaiting(undefined, half(total)),
    anonymous
      ? store.countWaiting(null, half(anonymousLimit))
      : store.countWaiting(identity.userId, half(perUser)),
    !identity.verified && clientAddress !== undefined
      ? store.countWaitingFrom(clientAddress, half(perAddress))
      : 0,
  ]);
  const tooMany = (message: string) =>
    new AppError(ErrorCode.TooManyWaiting, message, { headers: { 'Retry-After': '30' } });
  if (all >= total) {
    throw tooMany(`Too many executions are waiting for a person (${total}); try again later.`);
  }
  if (anonymous && own >= anonymousLimit) {
    throw tooMany(
      `Too many anonymous executions are waiting for a person (general.max_anonymous_waiting_executions: ${anonymousLimit}); sign in or try again later.`,
    );
  }
  if (!anonymous && own >= perUser) {
    throw tooMany(`You have ${perUser} executions waiting for an answer; answer or cancel some first.`);
  }
  if (fromAddress >= perAddress) {
    throw tooMany(
      `Too many executions started from your address are waiting for a person (general.max_waiting_executions_per_address: ${perAddress}); answer or cancel some first.`,
    );
  }
}
