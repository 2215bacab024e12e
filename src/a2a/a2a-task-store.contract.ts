import { randomUUID } from 'node:crypto';
import { CONTEXT_TTL_MS, MAX_CONTEXT_TURNS, MAX_PUSH_CONFIGS, type A2aTaskStore } from './a2a-task-store';

/** What a test controls of a store: the clock it reads, and which tasks still have a record. */
export interface StoreSetup {
  store: A2aTaskStore;
  /** Another process's store over the same data (the same one for memory). */
  other: A2aTaskStore;
  setNow(ms: number): void;
  /** Makes the task's execution record exist (its push configs survive a sweep). */
  recordTask(taskId: string): Promise<void>;
}

const aConfig = (id: string) => ({ id, url: `https://hooks.example.com/${id}`, token: '' });

/** The tests every `A2aTaskStore` adapter passes. */
export function a2aTaskStoreContract(name: string, setup: () => Promise<StoreSetup>): void {
  describe(`A2aTaskStore (${name})`, () => {
    it('a context keeps its turns in order, for its owner only', async () => {
      const { store, other } = await setup();
      const context = randomUUID();
      await store.addTurn('alice', context, { taskId: 't1', user: 'My name is Ada', answer: 'Hello Ada' });
      await other.addTurn('alice', context, { taskId: 't2', user: 'And yours?', answer: 'Interlude' });
      expect(await other.turns('alice', context)).toEqual([
        { taskId: 't1', user: 'My name is Ada', answer: 'Hello Ada' },
        { taskId: 't2', user: 'And yours?', answer: 'Interlude' },
      ]);
      expect(await store.turns('bob', context)).toEqual([]);
    });

    it(`a context keeps its last ${MAX_CONTEXT_TURNS} turns`, async () => {
      const { store } = await setup();
      const context = randomUUID();
      for (let i = 0; i < MAX_CONTEXT_TURNS + 2; i++)
        await store.addTurn('', context, { taskId: `t${i}`, user: `${i}`, answer: '' });
      const turns = await store.turns('', context);
      expect(turns).toHaveLength(MAX_CONTEXT_TURNS);
      expect(turns[0].user).toBe('2');
    });

    it(`push configs: added, replaced by id, at most ${MAX_PUSH_CONFIGS}, deleted`, async () => {
      const { store, other } = await setup();
      const task = randomUUID();
      for (let i = 0; i < MAX_PUSH_CONFIGS; i++)
        expect(await store.savePushConfig(task, aConfig(`c${i}`))).toBe(true);
      expect(await other.savePushConfig(task, aConfig('one-more'))).toBe(false);
      expect(await other.savePushConfig(task, { ...aConfig('c0'), token: 'new' })).toBe(true);
      const configs = await store.pushConfigs(task);
      expect(configs).toHaveLength(MAX_PUSH_CONFIGS);
      expect(configs.find((c) => c.id === 'c0')?.token).toBe('new');
      expect(await other.deletePushConfig(task, 'c1')).toBe(true);
      expect(await other.deletePushConfig(task, 'c1')).toBe(false);
      expect((await store.pushConfigs(task)).map((c) => c.id)).not.toContain('c1');
    });

    it('configs saved at once from two processes all count', async () => {
      const { store, other } = await setup();
      const task = randomUUID();
      await Promise.all([
        store.savePushConfig(task, aConfig('a')),
        other.savePushConfig(task, aConfig('b')),
        store.savePushConfig(task, aConfig('c')),
      ]);
      expect((await other.pushConfigs(task)).map((c) => c.id).sort()).toEqual(['a', 'b', 'c']);
    });

    it('a sweep forgets idle contexts and the configs of tasks whose record is gone', async () => {
      const { store, setNow, recordTask } = await setup();
      const [idle, fresh, kept, gone] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      const start = Date.now();
      setNow(start);
      await store.addTurn('', idle, { taskId: 't', user: 'old', answer: '' });
      setNow(start + CONTEXT_TTL_MS);
      await store.addTurn('', fresh, { taskId: 't', user: 'new', answer: '' });
      await recordTask(kept);
      await store.savePushConfig(kept, aConfig('k'));
      await store.savePushConfig(gone, aConfig('g'));
      await store.sweep(start + CONTEXT_TTL_MS + 1);
      expect(await store.turns('', idle)).toEqual([]);
      expect(await store.turns('', fresh)).toHaveLength(1);
      expect(await store.pushConfigs(kept)).toHaveLength(1);
      expect(await store.pushConfigs(gone)).toEqual([]);
    });
  });
}
