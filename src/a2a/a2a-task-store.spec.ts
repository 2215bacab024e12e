import { a2aTaskStoreContract } from './a2a-task-store.contract';
import { MAX_MEMORY_CONTEXTS, MemoryA2aTaskStore } from './a2a-task-store';

a2aTaskStoreContract('memory', async () => {
  let now = Date.now();
  const records = new Set<string>();
  const store = new MemoryA2aTaskStore(
    async (id) => records.has(id),
    () => now,
  );
  return {
    store,
    other: store,
    setNow: (ms) => (now = ms),
    recordTask: async (id) => void records.add(id),
  };
});

describe('MemoryA2aTaskStore', () => {
  it(`holds at most ${MAX_MEMORY_CONTEXTS} contexts: the least recently used one makes room`, async () => {
    const store = new MemoryA2aTaskStore(async () => true);
    const turn = { taskId: 't', user: 'u', answer: 'a' };
    for (let i = 0; i < MAX_MEMORY_CONTEXTS; i++) await store.addTurn('', `c${i}`, turn);
    await store.addTurn('', 'c0', { ...turn, taskId: 't2' }); // c0 used again: c1 is now the oldest
    await store.addTurn('', 'new', turn);
    expect(await store.turns('', 'c1')).toEqual([]);
    expect(await store.turns('', 'c0')).toHaveLength(2);
    expect(await store.turns('', 'new')).toHaveLength(1);
  });
});
