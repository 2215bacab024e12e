import type { Logger } from '@nestjs/common';
import { isDependencyOutage } from './dependency-outage';

/** How long a final write (a job's, an execution's end) is retried while its store is away (a restart or fail-over takes less). */
export const STORE_AWAY_LIMIT_MS = 10 * 60_000;
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5000;

export interface RetryOptions {
  /** Gives up (returns undefined) once this says so: the server stops. */
  stopped?: () => boolean;
  limitMs?: number;
}

/**
 * Runs `write` until it succeeds, retrying while its store is down or unreachable
 * (`isDependencyOutage`), with pauses growing from 250 ms to 5 s, for at most `limitMs`. Any other
 * error is thrown at once; so is the outage's error once the limit is passed. Says in the log once
 * when the store is away and once when the write went through after all. Undefined when `stopped`.
 */
export async function whileStoreAway<T>(
  what: string,
  write: () => Promise<T>,
  logger: Logger,
  { stopped = () => false, limitMs = STORE_AWAY_LIMIT_MS }: RetryOptions = {},
): Promise<T | undefined> {
  const started = Date.now();
  for (let pause = FIRST_PAUSE_MS, tries = 1; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS), tries++) {
    try {
      const result = await write();
      if (tries > 1) logger.log(`${what}: written after ${tries} tries (${Date.now() - started} ms)`);
      return result;
    } catch (err) {
      if (!isDependencyOutage(err) || Date.now() - started + pause > limitMs) throw err;
      if (tries === 1)
        logger.warn(`${what}: its store is away (${(err as Error).message}); retrying until it is back`);
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
    if (stopped()) return undefined;
  }
}
