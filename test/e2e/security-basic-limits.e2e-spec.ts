import crypto from 'node:crypto';
import { hashPassword } from '../../src/core/identity/configured-credentials';
import { eventually, startApp, type TestApp } from '../utils/test-app';
import { whoamiRegistry } from '../utils/whoami-function';

const basicOf = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Users whose password is `<name> pw`; the proxy on loopback says which address each request is from. */
async function appWithUsers(names: string[], limits: Record<string, number> = {}): Promise<TestApp> {
  const users = await Promise.all(
    names.map(
      async (name) => `      - { username: ${name}, password_hash: '${await hashPassword(`${name} pw`)}' }`,
    ),
  );
  const yaml = [
    'general:',
    "  front_end: { trust_proxy: ['loopback'] }",
    '  auth:',
    '    basic_users:',
    ...users,
    ...(Object.keys(limits).length > 0 ? [`    basic_limits: ${JSON.stringify(limits)}`] : []),
    'workflow: { _type: whoami }',
    '',
  ].join('\n');
  return startApp(yaml, whoamiRegistry());
}

/** Who the server says the caller is, or the status it refused with (and its Retry-After). */
async function signIn(t: TestApp, user: string, password: string, from: string) {
  const res = await fetch(`${t.url}/v1/workflow`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: basicOf(user, password),
      'x-forwarded-for': from,
    },
    body: JSON.stringify({ input_message: 'who am I?' }),
  });
  const body = (await res.json()) as { identity?: { userId?: string } };
  return { status: res.status, retryAfter: res.headers.get('retry-after'), user: body.identity?.userId };
}

/**
 * Counts the password hashes the server computes: how many, how many at once, and how many were
 * running when a given password's hash started (the work queued ahead of that sign-in).
 */
function countHashes(watched: string) {
  const original = crypto.scrypt;
  const seen = { calls: 0, running: 0, mostAtOnce: 0, aheadOfWatched: -1 };
  const spy = jest.spyOn(crypto, 'scrypt').mockImplementation(((
    password: crypto.BinaryLike,
    salt: crypto.BinaryLike,
    length: number,
    done: (err: Error | null, key: Buffer) => void,
  ) => {
    if (String(password) === watched) seen.aheadOfWatched = seen.running;
    seen.calls++;
    seen.running++;
    seen.mostAtOnce = Math.max(seen.mostAtOnce, seen.running);
    original(password, salt, length, (err, key) => {
      seen.running--;
      done(err, key);
    });
  }) as typeof crypto.scrypt);
  return { seen, restore: () => spy.mockRestore() };
}

describe('Basic sign-ins under a flood of wrong passwords', () => {
  let t: TestApp;
  beforeAll(async () => (t = await appWithUsers(['ann', 'bob', 'erin'])));
  afterAll(() => t.close());

  it('the flood gets 429s with Retry-After, and another user still signs in with few hashes ahead of them', async () => {
    const hashes = countHashes('bob pw');
    try {
      const flood = Array.from({ length: 100 }, (_, i) => signIn(t, 'ann', `guess-${i}`, '203.0.113.7'));
      const bob = await signIn(t, 'bob', 'bob pw', '198.51.100.9');
      const answers = await Promise.all(flood);

      expect(bob).toMatchObject({ status: 200, user: 'bob' });
      const refused = answers.filter((a) => a.status === 429);
      const checked = answers.filter((a) => a.status === 401);
      expect(refused.length + checked.length).toBe(100);
      // general.auth.basic_limits defaults: 10 failures per address in the window, 2 checks at once.
      expect(checked.length).toBeLessThanOrEqual(10);
      expect(refused.every((a) => Number(a.retryAfter) >= 1)).toBe(true);
      expect(hashes.seen.calls).toBeLessThanOrEqual(checked.length + 1);
      expect(hashes.seen.mostAtOnce).toBeLessThanOrEqual(2);
      expect(hashes.seen.aheadOfWatched).toBeGreaterThanOrEqual(0);
      expect(hashes.seen.aheadOfWatched).toBeLessThanOrEqual(2);
    } finally {
      hashes.restore();
    }
  });

  it('the same wrong password again is refused without hashing it again', async () => {
    const hashes = countHashes('never');
    try {
      expect((await signIn(t, 'erin', 'stale password', '198.51.100.30')).status).toBe(401);
      const afterFirst = hashes.seen.calls;
      expect(afterFirst).toBe(1);
      expect((await signIn(t, 'erin', 'stale password', '198.51.100.30')).status).toBe(401);
      expect((await signIn(t, 'erin', 'stale password', '198.51.100.31')).status).toBe(401);
      expect(hashes.seen.calls).toBe(afterFirst);
      expect(await signIn(t, 'erin', 'erin pw', '198.51.100.30')).toMatchObject({
        status: 200,
        user: 'erin',
      });
    } finally {
      hashes.restore();
    }
  });
});

describe('Basic failures per user name', () => {
  let t: TestApp;
  beforeAll(
    async () =>
      (t = await appWithUsers(['carol', 'dave'], {
        max_failures_per_username: 5,
        failure_window_seconds: 3,
      })),
  );
  afterAll(() => t.close());

  it('locks the attacked name only, and only for the window; other users sign in meanwhile', async () => {
    // Each guess from an address of its own: only the per-name limit can stop them.
    const guesses: Awaited<ReturnType<typeof signIn>>[] = [];
    for (let i = 0; i < 8; i++) guesses.push(await signIn(t, 'carol', `guess-${i}`, `203.0.113.${i + 1}`));
    expect(guesses.map((g) => g.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);

    const locked = await signIn(t, 'carol', 'carol pw', '198.51.100.20');
    expect(locked.status).toBe(429);
    expect(Number(locked.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(locked.retryAfter)).toBeLessThanOrEqual(3);
    expect(await signIn(t, 'dave', 'dave pw', '203.0.113.1')).toMatchObject({ status: 200, user: 'dave' });

    await eventually(async () => {
      expect(await signIn(t, 'carol', 'carol pw', '198.51.100.20')).toMatchObject({
        status: 200,
        user: 'carol',
      });
    }, 10_000);
  });
});
