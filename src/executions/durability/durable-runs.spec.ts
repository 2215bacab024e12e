import { DurableRuns, type TakeoverHost } from './durable-runs';
import type { Journal } from './journal';
import type { PostgresExecutionClaims } from './postgres-execution-claims';
import type { PostgresReplicaLeases } from './postgres-replica-leases';
import type { ReleasedExecutions } from './released-executions';

/** A lease long enough that its quarter-lease scans (every 10 s) stay out of the way. */
const LEASE_MS = 40_000;

/** DurableRuns over a PostgreSQL stand-in whose renewals report the other leases' expiry from `expiries`. */
function durableRuns(expiries: (number | undefined)[]) {
  const claimedAt: number[] = [];
  const claims = {
    claim: () => {
      claimedAt.push(Date.now());
      return Promise.resolve([]);
    },
  } as unknown as PostgresExecutionClaims;
  const leases = {
    renew: () => Promise.resolve(expiries.shift()),
  } as unknown as PostgresReplicaLeases;
  const released = { onReleased: () => Promise.resolve() } as unknown as ReleasedExecutions;
  const runs = new DurableRuns({} as Journal, claims, leases, released, LEASE_MS);
  const host: TakeoverHost = { resume: () => Promise.resolve(), abandon: () => [] };
  return { runs, host, claimedAt };
}

describe('DurableRuns', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('claims when the first other lease runs out, as its heartbeat read it, not a scan later', async () => {
    const { runs, host, claimedAt } = durableRuns([3_000]);
    await runs.start(host);
    await jest.advanceTimersByTimeAsync(3_004);
    expect(claimedAt).toEqual([0]);
    await jest.advanceTimersByTimeAsync(2);
    expect(claimedAt).toEqual([0, 3_005]);
    runs.stop();
  });

  it('a lease renewed meanwhile moves the claim on; none is timed when no other lease holds', async () => {
    // The heartbeat (every fifth of the lease: 8 s) finds the other lease renewed, then gone.
    const { runs, host, claimedAt } = durableRuns([9_000, 9_000, undefined]);
    await runs.start(host);
    await jest.advanceTimersByTimeAsync(9_500);
    expect(claimedAt).toEqual([0]);
    // The quarter-lease scan (10 s) still runs; the claim moved to 17 s is dropped by the next beat (16 s).
    await jest.advanceTimersByTimeAsync(9_000);
    expect(claimedAt).toEqual([0, 10_000]);
    runs.stop();
  });
});
