import { BasicLimitsConfig } from './auth.config';
import { BasicAuthLimits, SlidingWindow } from './basic-auth-limits';

const limitsOf = (overrides: Partial<BasicLimitsConfig> = {}) =>
  Object.assign(new BasicLimitsConfig(), overrides);

/** A check that ends when the test says so. */
function aCheck() {
  let end!: () => void;
  const ended = new Promise<string>((resolve) => (end = () => resolve('checked')));
  return { run: () => ended, end };
}

const statusOf = (err: unknown) => (err as { code?: string }).code;
const retryAfterOf = (err: unknown) =>
  Number((err as { extra: { headers: Record<string, string> } }).extra.headers['Retry-After']);

describe('SlidingWindow', () => {
  it('allows `limit` events in any window, and says when the next may come', () => {
    let now = 0;
    const window = new SlidingWindow(3, 10_000, () => now);
    for (const t of [0, 1000, 2000]) {
      now = t;
      expect(window.waitFor('k')).toBe(0);
      window.add('k');
    }
    now = 2500;
    expect(window.waitFor('k')).toBe(7500);
    expect(window.waitFor('other')).toBe(0);
    now = 10_001;
    expect(window.waitFor('k')).toBe(0);
  });
});

describe('BasicAuthLimits', () => {
  it('runs max_concurrent_checks at once, lines up max_waiting_checks, refuses the rest with 429', async () => {
    const limits = new BasicAuthLimits(limitsOf({ max_concurrent_checks: 1, max_waiting_checks: 1 }));
    const first = aCheck();
    const second = aCheck();
    const running = limits.run('10.0.0.1', 'a', first.run);
    const waiting = limits.run('10.0.0.2', 'b', second.run);
    const refused = await limits.run('10.0.0.3', 'c', async () => 'never').catch((e: unknown) => e);
    expect(statusOf(refused)).toBe('too_many_waiting');
    expect(retryAfterOf(refused)).toBe(1);
    first.end();
    second.end();
    await expect(Promise.all([running, waiting])).resolves.toEqual(['checked', 'checked']);
  });

  it('an address holds at most max_checks_per_address places', async () => {
    const limits = new BasicAuthLimits(limitsOf({ max_checks_per_address: 1 }));
    const check = aCheck();
    const running = limits.run('10.0.0.1', 'a', check.run);
    await expect(limits.run('10.0.0.1', 'b', async () => 'x')).rejects.toThrow(/being checked/);
    await expect(limits.run('10.0.0.2', 'b', async () => 'x')).resolves.toBe('x');
    check.end();
    await running;
  });

  it('an address or a name past its failures gets 429 until the window lets one more in', async () => {
    let now = 0;
    const limits = new BasicAuthLimits(
      limitsOf({ max_failures_per_address: 2, max_failures_per_username: 3, failure_window_seconds: 60 }),
      () => now,
    );
    const ok = async () => 'ok';
    limits.recordFailure('f1', '10.0.0.1', 'ann');
    limits.recordFailure('f2', '10.0.0.1', 'ann');
    const byAddress = await limits.run('10.0.0.1', 'bob', ok).catch((e: unknown) => e);
    expect((byAddress as Error).message).toMatch(/from your address/);
    expect(retryAfterOf(byAddress)).toBe(60);
    await expect(limits.run('10.0.0.2', 'ann', ok)).resolves.toBe('ok');
    limits.recordFailure('f3', '10.0.0.3', 'ann');
    now = 30_000;
    const byName = await limits.run('10.0.0.4', 'ann', ok).catch((e: unknown) => e);
    expect((byName as Error).message).toMatch(/this user name/);
    expect(retryAfterOf(byName)).toBe(30);
    await expect(limits.run('10.0.0.4', 'bob', ok)).resolves.toBe('ok');
    now = 60_001;
    await expect(limits.run('10.0.0.1', 'ann', ok)).resolves.toBe('ok');
  });

  it('remembers a failed credential for failure_cache_seconds', () => {
    let now = 0;
    const limits = new BasicAuthLimits(limitsOf({ failure_cache_seconds: 30 }), () => now);
    limits.recordFailure('fp', '10.0.0.1', 'ann');
    expect(limits.failedRecently('fp')).toBe(true);
    expect(limits.failedRecently('other')).toBe(false);
    now = 30_001;
    expect(limits.failedRecently('fp')).toBe(false);
  });
});
