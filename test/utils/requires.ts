import { existsSync } from 'node:fs';

/** A service some tests need that a machine may lack. */
export type Requirement = 'chromium' | 'postgres' | 'redis';

export const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * How a suite skipped for a missing service is marked in its name: test/summary-reporter.js reads the
 * reason back from there to say, for each skipped test, what it lacks (Jest gives a reporter nothing else).
 */
export const SKIP_MARK = ' [skipped: needs ';

/** Why `need` cannot be used here, or null when it can. */
function missing(need: Requirement): string | null {
  switch (need) {
    case 'chromium':
      return existsSync(chromiumPath())
        ? null
        : `no Chromium at ${chromiumPath()} (apt-get install chromium, or set CHROMIUM_PATH)`;
    case 'postgres':
      return process.env.DATABASE_URL ? null : 'DATABASE_URL is not set (postgres://…)';
    case 'redis':
      return process.env.REDIS_URL ? null : 'REDIS_URL is not set (redis://…)';
  }
}

/**
 * `describe` for tests that need `need`. Without it they are skipped, so Jest counts them as skipped
 * rather than passed, and the run's summary names what they lack; under CI=true its absence is a
 * failing test instead, since CI must run them all.
 */
export function requires(need: Requirement): jest.Describe | ((name: string, fn: () => void) => void) {
  const why = missing(need);
  if (why === null) return describe;
  if (process.env.CI !== 'true') {
    return (name: string, fn: () => void) => describe.skip(`${name}${SKIP_MARK}${need}: ${why}]`, fn);
  }
  return (name: string) =>
    describe(name, () => {
      it(`needs ${need}`, () => {
        throw new Error(`CI=true and ${why}`);
      });
    });
}
