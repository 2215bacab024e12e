import { Logger } from '@nestjs/common';
import type { AbortWatch } from '../runtime/lazy-abort';
import { HandedOver } from '../runtime/run-journal';
import { OAuthFlowError } from './oauth-flow-error';
import type { OAuthWakeups } from './oauth-wakeups';
import type { FlowOutcome, PendingFlow, PendingOAuthFlows } from './pending-oauth-flows';

/**
 * A flow a callback took but never settled (its replica died mid-exchange) is failed this long after
 * the flow's expiry, rather than left waiting forever. Longer than any token request takes.
 */
export const TAKEN_GRACE_MS = 30_000;

/**
 * How often a waiter re-reads its flow besides listening: a wake-up published while this replica's
 * subscriber was reconnecting is lost, and this bounds how late the workflow learns the outcome.
 */
export const RECHECK_INTERVAL_MS = 15_000;

const logger = new Logger('OAuth');

/**
 * Waits, in the process that runs the workflow, for a flow's outcome from whichever replica settles
 * it. Listens first, then re-reads the flow, so an outcome settled in between (or before a replica
 * took the execution over) is not missed. At the flow's expiry, or on cancel, it fails the flow itself
 * by compare-and-set (not when the run is handed over: the replica going on with it waits on the flow);
 * if a callback got there first, that callback’s outcome wins. Resolves with the
 * outcome, or the local error (the cancel reason, the timeout) that ended it.
 */
export function awaitFlowOutcome(
  flows: PendingOAuthFlows,
  wakeups: OAuthWakeups,
  flow: PendingFlow,
  cancel: AbortWatch,
  timeoutMessage: string,
): Promise<FlowOutcome | Error> {
  return new Promise((resolve) => {
    let finished = false;
    let grace: NodeJS.Timeout | undefined;
    const finish = (outcome: FlowOutcome | Error) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      clearTimeout(grace);
      clearInterval(recheck);
      stopWatching();
      stopListening();
      resolve(outcome);
    };
    const settled = async () => {
      const found = await flows.find(flow.state);
      if (found?.status === 'settled') finish(found.outcome);
      return found;
    };
    const fail = async (err: Error) => {
      if (finished) return;
      if (await flows.take(flow.state)) {
        await flows.settle(flow.state, { ok: false, message: err.message });
        finish(err);
        return;
      }
      const found = await settled();
      if (found?.status === 'taken') {
        grace = setTimeout(() => void abandon().catch(() => finish(err)), TAKEN_GRACE_MS);
      } else if (!found) {
        finish(err);
      }
    };
    const abandon = async () => {
      const message = 'Authentication failed: the callback did not finish';
      await flows.settle(flow.state, { ok: false, message });
      await settled();
    };
    const failSafely = (err: Error) =>
      void fail(err).catch((storeError: unknown) => {
        logger.warn(`Could not record the end of an OAuth flow: ${(storeError as Error).message}`);
        finish(err);
      });

    const stopListening = wakeups.listen(flow.state, finish);
    const timer = setTimeout(
      () => failSafely(new OAuthFlowError(timeoutMessage)),
      Math.max(0, flow.expiresAt - Date.now()),
    );
    // A run handed over to another replica stops waiting here, and only here: the flow stays open for
    // the replica that goes on with the run (failing it would fail that run too).
    const stop = (reason: unknown) =>
      reason instanceof HandedOver ? finish(reason) : failSafely(reason as Error);
    const stopWatching = cancel.onAbort(stop);
    const recheck = setInterval(() => void settled().catch(() => undefined), RECHECK_INTERVAL_MS);
    if (cancel.aborted) stop(cancel.abortReason);
    void settled().catch((err: unknown) => {
      logger.warn(`Could not read an OAuth flow: ${(err as Error).message}`);
    });
  });
}
