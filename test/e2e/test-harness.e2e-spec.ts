import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');

/** Runs one spec file in a Jest of its own and returns its closing summary line. */
function runSpec(spec: string, env: Record<string, string | undefined>) {
  const run = spawnSync(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--ci', '--runTestsByPath', spec],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 },
  );
  const summary = /tests: \d+ passed, \d+ failed, \d+ skipped/.exec(run.stdout)?.[0];
  return { status: run.status, summary, output: run.stdout + run.stderr };
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
  });

  it('under CI=true a missing DATABASE_URL fails the PostgreSQL feedback tests', () => {
    const run = runSpec('test/e2e/feedback.e2e-spec.ts', { CI: 'true', DATABASE_URL: '' });
    expect(run.summary).toMatch(/^tests: \d+ passed, [1-9]\d* failed, 0 skipped$/);
    expect(run.output).toContain('DATABASE_URL');
  });

  it('elsewhere, without DATABASE_URL, the PostgreSQL feedback tests are counted as skipped', () => {
    const run = runSpec('test/e2e/feedback.e2e-spec.ts', { CI: undefined, DATABASE_URL: '' });
    expect(run.summary).toMatch(/^tests: \d+ passed, 0 failed, [1-9]\d* skipped$/);
  });
});
