/**
 * Timing checks that hold on a loaded machine: no test compares a duration with a fixed number of
 * milliseconds (two full test runs at once on two cores make any such number wrong). A test compares
 * costs measured at the same moment instead. Work is measured in CPU time: wall-clock time of anything
 * longer than a scheduler's time slice grows with the machine's load (a run of 4 ms took 20–40 ms at a
 * load of 15 on two cores, one of 1 ms did not), CPU time does not.
 */

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** The least CPU time of `tries` runs of each of `runs`, in ms, run in turn so that each sees the same conditions. */
export function fastestOf(runs: (() => unknown)[], tries = 5): number[] {
  const best = runs.map(() => Infinity);
  for (let i = 0; i < tries; i++) {
    runs.forEach((run, k) => {
      const started = cpuMs();
      run();
      best[k] = Math.min(best[k], cpuMs() - started);
    });
  }
  return best;
}

/**
 * How many times longer `run` takes on `size(4)` than on `size(1)`: about 4 for work linear in its input,
 * 16 for quadratic work. Catastrophic backtracking and other superlinear work show up as well over 10
 * whatever the machine's speed or load.
 */
export function growthOver4x<T>(size: (scale: 1 | 4) => T, run: (input: T) => unknown): number {
  const small = size(1);
  const big = size(4);
  // Below half a millisecond the clock's resolution and one-off costs dominate, and such work is no concern.
  // A loaded machine only ever makes the ratio larger (a linear parse, 4× quiet, read 14.7× to 18× in full
  // runs), never smaller: up to three measurements, the least kept; quadratic work stays near 16 in each.
  let least = Infinity;
  for (let attempt = 0; attempt < 3 && least >= LINEAR; attempt++) {
    const [fast, slow] = fastestOf([() => run(small), () => run(big)], 9);
    least = Math.min(least, slow / Math.max(fast, 0.5));
  }
  return least;
}

/** Well under quadratic (16) and safely over linear (4) with a machine's noise. */
export const LINEAR = 10;

/**
 * How long a test waits for an event or a state before it fails (the default of `eventually`, of the SSE
 * and WebSocket clients' waits, of the job and execution polls). It only detects what never happens: a
 * test that passes never waits it out, so it is no speed bound, and it must outlast what a step takes on
 * two cores running two full test runs at once (3 s did not: an OAuth round trip or an agent's second
 * model call missed it).
 */
export const WAIT_MS = 15_000;

/**
 * How long a test waits for a process it started (`interlude serve`, a worker, a replica) to be ready or
 * to finish: a start costs about a second of CPU, which a loaded two-core machine stretches to tens.
 * Less than Jest's test timeout (jest.config.js), so that the failure shows the process's output.
 */
export const START_MS = 45_000;

/**
 * What `promise` settled with, or 'timer' if a timer due in `ms` (set now) fired first. Timers of one
 * event loop fire in the order they fall due whatever the load, so against a timer of an app in this
 * process that was set later and is due no sooner, the outcome is fixed: "the cancelled run rejects
 * before its 30 s sleep could end" holds on any machine.
 */
export function beforeTimer<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T> | 'timer'> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.then(
      (value) => ({ status: 'fulfilled' as const, value }),
      (reason: unknown) => ({ status: 'rejected' as const, reason }),
    ),
    new Promise<'timer'>((resolve) => (timer = setTimeout(() => resolve('timer'), ms))),
  ]).finally(() => clearTimeout(timer));
}
