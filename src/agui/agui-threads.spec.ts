import { ReplicaServices } from '../../test/utils/replica-services';
import { requires } from '../../test/utils/requires';
import { MemoryAguiThreads, type AguiThread, type AguiThreads } from './agui-threads';
import type { PendingInterrupt } from './interrupts';
import { CLAIM_LEASE_MS, PostgresAguiThreads } from './postgres-agui-threads';

function aPendingInterrupt(): PendingInterrupt {
  return { interrupt: { id: 'i-1', reason: 'input_required' }, kind: 'prompt', executionId: 'e-1' };
}

type Make = (maxPerOwner: number, ttlMs: number, clock: () => number) => AguiThreads | Promise<AguiThreads>;

/** What every AguiThreads adapter does, whichever store holds the threads. */
function threadContract(make: Make): void {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000_000));

  it('refuses a second claim while a run streams on the thread', async () => {
    const threads = await make(10, 60_000, clock);
    const first = await threads.claim('t', 'alice');
    expect(first).not.toBe(false);
    expect(await threads.claim('t', 'alice')).toBe(false);
    await threads.release(first as never);
    expect(await threads.claim('t', 'alice')).not.toBe(false);
  });

  it('forgets a thread idle past its time to live', async () => {
    const threads = await make(10, 60_000, clock);
    await threads.release((await threads.claim('t', 'alice')) as never);
    now += 59_999;
    expect(await threads.get('t', 'alice')).toBeDefined();
    now += 60_000;
    await threads.sweep();
    expect(await threads.get('t', 'alice')).toBeUndefined();
  });

  it('holds at most the limit per identity: the least recently used idle thread makes room', async () => {
    const threads = await make(2, 60_000, clock);
    for (const id of ['a', 'b']) {
      now++;
      await threads.release((await threads.claim(id, 'mallory')) as never);
    }
    now++;
    await threads.claim('c', 'mallory');
    expect(await threads.get('a', 'mallory')).toBeUndefined();
    expect(await threads.get('b', 'mallory')).toBeDefined();
    // Other identities are not affected by mallory's threads.
    expect(await threads.claim('d', 'alice')).not.toBe(false);
  });

  it('refuses a new thread when all of an identity’s threads are running', async () => {
    const threads = await make(1, 60_000, clock);
    await threads.claim('a', 'mallory');
    await expect(threads.claim('b', 'mallory')).rejects.toThrow(/At most 1/);
  });

  it('never makes room with a thread that waits on an interrupt', async () => {
    const threads = await make(2, 60_000, clock);
    const waiting = (await threads.claim('victim', 'anonymous')) as AguiThread;
    threads.setInterrupts(waiting, [aPendingInterrupt()]);
    await threads.release(waiting);
    now++;
    await threads.release((await threads.claim('a', 'anonymous')) as never);
    now++;
    // The idle one makes room, then nothing can.
    expect(await threads.claim('b', 'anonymous')).not.toBe(false);
    await expect(threads.claim('c', 'anonymous')).rejects.toThrow(/At most 2/);
    expect(await threads.get('victim', 'anonymous')).toMatchObject({ interrupts: [aPendingInterrupt()] });
    expect(await threads.get('a', 'anonymous')).toBeUndefined();
  });

  it('keeps one thread per owner and id: the same id of another owner is another thread', async () => {
    const threads = await make(10, 60_000, clock);
    const alice = (await threads.claim('t', 'alice')) as AguiThread;
    Object.assign(alice, { executionId: 'e-alice' });
    await threads.release(alice);
    const bob = (await threads.claim('t', 'bob')) as AguiThread;
    expect(bob).toMatchObject({ id: 't', owner: 'bob', busy: true });
    expect(bob.executionId).toBeUndefined();
    await threads.release(bob);
    expect(await threads.get('t', 'alice')).toMatchObject({ owner: 'alice', executionId: 'e-alice' });
    expect(await threads.get('t', 'bob')).toMatchObject({ owner: 'bob' });
    expect(await threads.get('t', 'carol')).toBeUndefined();
  });

  it('keeps what a run saved on the thread for the next run', async () => {
    const threads = await make(10, 60_000, clock);
    const thread = (await threads.claim('t', 'alice')) as AguiThread;
    Object.assign(thread, { executionId: 'e-1', cursor: 7 });
    await threads.save(thread);
    expect(await threads.get('t', 'alice')).toMatchObject({ executionId: 'e-1', cursor: 7, busy: true });
    await threads.release(thread);
    expect(await threads.get('t', 'alice')).toMatchObject({
      owner: 'alice',
      executionId: 'e-1',
      busy: false,
    });
  });
}

describe('AguiThreads in memory keeps a bounded set of threads', () => {
  threadContract((max, ttl, clock) => new MemoryAguiThreads(max, ttl, clock));
});

requires('postgres')('AguiThreads in Postgres (replicas share them)', () => {
  const services = new ReplicaServices();
  afterAll(() => services.cleanup());
  const make: Make = async (max, ttl, clock) => {
    const database = await services.database();
    // The tests reuse thread ids: each starts from an empty table.
    await database.db.deleteFrom('agui_thread').execute();
    return new PostgresAguiThreads(database.db, max, ttl, clock);
  };
  threadContract(make);

  it('a claim whose replica stopped renewing it lapses after the lease', async () => {
    let now = 1_000_000;
    const threads = await make(10, 3_600_000, () => now);
    await threads.claim('t', 'alice');
    now += CLAIM_LEASE_MS - 1;
    expect(await threads.claim('t', 'alice')).toBe(false);
    now += 2;
    expect(await threads.claim('t', 'alice')).toMatchObject({ id: 't', busy: true });
  });

  it('with the lease the server gives it (lease_seconds), a claim lapses after that and is renewed a third as often', async () => {
    let now = 1_000_000;
    const database = await services.database();
    await database.db.deleteFrom('agui_thread').execute();
    const threads = new PostgresAguiThreads(database.db, 10, 3_600_000, () => now, 2_000);
    expect(threads.renewEveryMs).toBeCloseTo(2_000 / 3);
    const held = await threads.claim('t', 'alice');
    now += 1_500;
    await threads.renew(held as AguiThread);
    now += 1_999;
    expect(await threads.claim('t', 'alice')).toBe(false);
    now += 2;
    expect(await threads.claim('t', 'alice')).toMatchObject({ id: 't', busy: true });
  });
});
