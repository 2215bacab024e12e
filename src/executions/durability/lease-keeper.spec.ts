import { LeaseKeeper } from './lease-keeper';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('LeaseKeeper (self-fencing)', () => {
  it('stops acting before its lease can run out when renewals hang, and says so once a renewal succeeds again', async () => {
    const leaseMs = 600;
    let hang = false;
    let release: (() => void) | undefined;
    const renew = () => (hang ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve());
    const events: [string, number][] = [];
    const started = Date.now();
    const keeper = new LeaseKeeper(renew, leaseMs, {
      fenced: () => events.push(['fenced', Date.now()]),
      renewed: () => events.push(['renewed', Date.now()]),
      failed: () => events.push(['failed', Date.now()]),
    });
    await keeper.start();
    await sleep(leaseMs * 1.5);
    expect(keeper.fenced).toBe(false);
    expect(events).toEqual([]);

    // Every renewal from now on hangs (a partition): fenced before a lease from the last success ends.
    hang = true;
    const hangFrom = Date.now();
    while (!keeper.fenced && Date.now() - hangFrom < 3 * leaseMs) await sleep(10);
    expect(events.map(([e]) => e)).toEqual(['fenced']);
    // The last renewal that succeeded started at most a third of a lease before the hang.
    expect(events[0][1] - hangFrom).toBeLessThan(leaseMs);

    // The hung renewal lands late (proves too little), the next one in time: acting again.
    hang = false;
    release?.();
    while (keeper.fenced && Date.now() - started < 10 * leaseMs) await sleep(10);
    keeper.stop();
    expect(keeper.fenced).toBe(false);
    expect(events.map(([e]) => e)).toEqual(['fenced', 'renewed']);
  });

  it('fences even when its deadline timer fires early by the wall clock (a long event-loop turn)', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    try {
      let hang = false;
      const renew = () => (hang ? new Promise<void>(() => undefined) : Promise.resolve());
      const events: string[] = [];
      const keeper = new LeaseKeeper(renew, 1000, {
        fenced: () => events.push('fenced'),
        renewed: () => undefined,
        failed: () => undefined,
      });
      await keeper.start();
      hang = true;
      // The wall clock lags the timers by 5 ms: the deadline fires while Date.now() is short of it.
      jest.setSystemTime(Date.now() - 5);
      await jest.advanceTimersByTimeAsync(750);
      await jest.advanceTimersByTimeAsync(10);
      keeper.stop();
      expect(events).toEqual(['fenced']);
    } finally {
      jest.useRealTimers();
    }
  });

  it('a failed renewal is reported; the lease holds while a later one succeeds in time', async () => {
    let fail = true;
    const failures: string[] = [];
    const keeper = new LeaseKeeper(
      () => (fail ? Promise.reject(new Error('ECONNREFUSED')) : Promise.resolve()),
      900,
      {
        fenced: () => failures.push('fenced'),
        renewed: () => undefined,
        failed: (e) => failures.push(e.message),
      },
    );
    await expect(keeper.start()).rejects.toThrow('ECONNREFUSED');
    fail = false;
    await keeper.start();
    fail = true;
    await sleep(350);
    fail = false;
    await sleep(700);
    keeper.stop();
    expect(failures).toContain('ECONNREFUSED');
    expect(failures).not.toContain('fenced');
    expect(keeper.fenced).toBe(false);
  });
});
