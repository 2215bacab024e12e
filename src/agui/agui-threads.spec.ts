import { MemoryAguiThreads as AguiThreads } from './agui-threads';

describe('AguiThreads keeps a bounded set of threads', () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('refuses a second claim while a run streams on the thread', async () => {
    const threads = new AguiThreads(10, 60_000, clock);
    const first = await threads.claim('t', 'alice');
    expect(first).not.toBe(false);
    expect(await threads.claim('t', 'alice')).toBe(false);
    await threads.release(first as never);
    expect(await threads.claim('t', 'alice')).not.toBe(false);
  });

  it('forgets a thread idle past its time to live', async () => {
    const threads = new AguiThreads(10, 60_000, clock);
    await threads.release((await threads.claim('t', 'alice')) as never);
    now += 59_999;
    expect(await threads.get('t')).toBeDefined();
    now += 60_000;
    await threads.sweep();
    expect(threads.size).toBe(0);
    expect(await threads.get('t')).toBeUndefined();
  });

  it('holds at most the limit per identity: the least recently used idle thread makes room', async () => {
    const threads = new AguiThreads(2, 60_000, clock);
    for (const id of ['a', 'b']) {
      now++;
      await threads.release((await threads.claim(id, 'mallory')) as never);
    }
    now++;
    await threads.claim('c', 'mallory');
    expect(await threads.get('a')).toBeUndefined();
    expect(await threads.get('b')).toBeDefined();
    // Other identities are not affected by mallory's threads.
    expect(await threads.claim('d', 'alice')).not.toBe(false);
    expect(threads.size).toBe(3);
  });

  it('refuses a new thread when all of an identity’s threads are running', async () => {
    const threads = new AguiThreads(1, 60_000, clock);
    await threads.claim('a', 'mallory');
    await expect(threads.claim('b', 'mallory')).rejects.toThrow(/At most 1/);
  });
});
