import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Runs one spec file in a Jest of its own and returns its closing summary line. */
function runSpec(spec: string, env: Record<string, string | undefined>) {
  const run = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--ci', '--runTestsByPath', spec],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 },
  );
  const summary = /tests: \d+ passed, \d+ failed, \d+ skipped/.exec(run.stdout)?.[0];
  const skipLines = run.stdout.split('\n').filter((line) => line.startsWith('skipped '));
  return { status: run.status, summary, skipLines, output: run.stdout + run.stderr };
}

/** The skipped count of a closing line, and the sum of the counts of the lines that say why. */
function skipCounts(run: ReturnType<typeof runSpec>) {
  const total = Number(/(\d+) skipped$/.exec(run.summary ?? '')?.[1]);
  const explained = run.skipLines.reduce((n, line) => n + Number(/^skipped (\d+) /.exec(line)?.[1]), 0);
  return { total, explained };
}

describe('a test whose service is missing never counts as passed', () => {
  const browserSpec = 'test/e2e/websocket-browser.e2e-spec.ts';

  it('under CI=true a missing Chromium fails the run, naming what is missing', () => {
    const run = runSpec(browserSpec, { CI: 'true', CHROMIUM_PATH: '/nowhere/chromium' });
    expect(run.summary).toMatch(/^tests: 0 passed, [1-9]\d* failed, 0 skipped$/);
    expect(run.output).toContain('/nowhere/chromium');
    expect(run.status).not.toBe(0);
  });

  it('elsewhere the browser tests are reported as skipped, not passed', () => {
    const run = runSpec(browserSpec, { CI: undefined, CHROMIUM_PATH: '/nowhere/chromium' });
    expect(run.summary).toMatch(/^tests: 0 passed, 0 failed, [1-9]\d* skipped$/);
    expect(run.status).toBe(0);
    // and the run says which browser they lack, for every one of them
    expect(run.skipLines).toEqual([
      expect.stringMatching(
        /^skipped \d+ tests \(test\/e2e\/websocket-browser\.e2e-spec\.ts › WebSocket gateway .*\): needs chromium: no Chromium at \/nowhere\/chromium /,
      ),
    ]);
    const { total, explained } = skipCounts(run);
    expect(explained).toBe(total);
  });

  // A spec whose tests all need PostgreSQL and start no app: the check is the harness's, not the app's.
  const postgresSpec = 'src/oauth/postgres-adapters.spec.ts';

  it('under CI=true a missing DATABASE_URL fails the PostgreSQL tests', () => {
    const run = runSpec(postgresSpec, { CI: 'true', DATABASE_URL: '' });
    expect(run.summary).toMatch(/^tests: 0 passed, [1-9]\d* failed, 0 skipped$/);
    expect(run.output).toContain('DATABASE_URL');
  });

  it('elsewhere, without DATABASE_URL, the PostgreSQL tests are counted as skipped, saying why', () => {
    const run = runSpec(postgresSpec, { CI: undefined, DATABASE_URL: '' });
    expect(run.summary).toMatch(/^tests: 0 passed, 0 failed, [1-9]\d* skipped$/);
    expect(run.skipLines).toEqual([
      expect.stringMatching(
        /^skipped \d+ tests \(src\/oauth\/postgres-adapters\.spec\.ts › Postgres OAuth adapters\): needs postgres: DATABASE_URL is not set/,
      ),
    ]);
    const { total, explained } = skipCounts(run);
    expect(explained).toBe(total);
  });
});
