import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@nestjs/common';
import { AppError, ErrorCode } from '../../core/errors/app-error';
import { isDependencyOutage } from '../../core/errors/dependency-outage';
import type { Execution, StartOptions } from '../model/execution';
import type { DurableRuns } from '../durability/durable-runs';
import type { RunSpec } from '../model/run-spec';
import { executionNotFound } from './execution-access';
import type { ExecutionCancels } from './execution-cancels';
import type { ExecutionStore } from '../store/execution.store';
import type { EventLogs } from '../event-log/event-log';
import type { ExecutionRecord } from '../model/execution-record';
import { isTerminalStatus } from '../model/execution-state';

/**
 * An execution another replica runs, as a face on this one sees it: its events followed from the
 * shared event log. Undefined when that log is not there (one process, or expired).
 */
export async function remoteExecution(
  eventLogs: EventLogs,
  record: ExecutionRecord,
  cancel: (reason: string) => Promise<void>,
): Promise<Execution | undefined> {
  const events = await eventLogs.attach(record.id, !isTerminalStatus(record.status));
  if (!events) return undefined;
  return {
    id: record.id,
    traceId: record.traceId,
    events,
    get done() {
      return events.done;
    },
    cancel,
    // Only the replica that started it can hand its id out first; here it has been handed out already.
    expose: () => undefined,
  };
}

/**
 * An execution a request asked this replica to start while it hands its runs over: recorded released,
 * so another replica claims it at once and runs it from the start. The face here follows the shared
 * log and is told at once that the run is elsewhere (a stream ends with a hint to re-attach).
 */
export async function startReleased(
  store: ExecutionStore,
  eventLogs: EventLogs,
  durable: DurableRuns,
  start: {
    record: ExecutionRecord;
    spec: RunSpec;
    cancel: (reason: string) => Promise<void>;
    options: StartOptions;
    /** Written already as this replica's own (it began to stop during that write): released now. */
    written?: boolean;
  },
): Promise<Execution> {
  const { record, spec, cancel, options } = start;
  if (start.written) await durable.release([record.id]);
  else await store.create(record, { replica: null, spec });
  const followed = await remoteExecution(eventLogs, record, cancel);
  if (!followed) throw new Error(`The event log of execution ${record.id} cannot be followed`);
  await durable.passOn();
  const execution: Execution = {
    ...followed,
    done: followed.done,
    onHandover: (listener) => {
      queueMicrotask(listener);
      return () => undefined;
    },
  };
  options.beforeRun?.(execution);
  return execution;
}

/**
 * Asks the replica that runs an execution to cancel it, and waits until the shared record says it
 * ended (so a poll right after the 204 sees it). 404 when no other process could run it. When Redis
 * (which carries the request) is away, the client gets 503 and the request is sent again until the
 * record says the execution ended: it is cancelled once Redis is back.
 */
export async function cancelElsewhere(
  store: ExecutionStore,
  cancels: ExecutionCancels,
  id: string,
  reason: string,
  timeoutMs = 5000,
): Promise<void> {
  let asked: boolean;
  try {
    asked = await cancels.request(id, reason);
  } catch (err) {
    if (isDependencyOutage(err)) askAgain(store, cancels, id, reason);
    throw err;
  }
  if (!asked) throw executionNotFound(id);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const record = await store.get(id);
    if (!record || isTerminalStatus(record.status)) return;
    await sleep(25);
  }
  throw new AppError(
    ErrorCode.Unavailable,
    `Execution ${id} runs on a replica that did not confirm the cancel in time; try again`,
  );
}

/** Cancels asked while Redis was away, sent again (one loop per execution, a bounded number at once). */
const retried = new Set<string>();
const MAX_RETRIED = 1000;
const RETRY_MS = 1000;
/** How long a cancel is sent again before it is given up (logged): longer than any outage tested. */
const RETRY_FOR_MS = 10 * 60 * 1000;
const logger = new Logger('ExecutionCancels');

function askAgain(store: ExecutionStore, cancels: ExecutionCancels, id: string, reason: string): void {
  if (retried.has(id) || retried.size >= MAX_RETRIED) return;
  retried.add(id);
  const until = Date.now() + RETRY_FOR_MS;
  void (async () => {
    // Until the record says it ended: a request sent before the replica running it heard Redis again
    // (its subscription back) reaches nobody, so one that went out is not enough.
    while (Date.now() < until) {
      await sleep(RETRY_MS, undefined, { ref: false });
      const record = await store.get(id).catch(() => null);
      if (record === undefined || (record && isTerminalStatus(record.status))) return;
      if (record) await cancels.request(id, reason).catch(() => undefined);
    }
    logger.warn(`Cancel of execution ${id}, asked while Redis was away, given up after ${RETRY_FOR_MS} ms`);
  })().finally(() => retried.delete(id));
}
