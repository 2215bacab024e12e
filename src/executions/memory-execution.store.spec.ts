import { anExecutionRecord, anOpenInteraction, aPrompt } from '../../test/utils/builders';
import { MemoryExecutionStore } from './memory-execution.store';

describe('MemoryExecutionStore', () => {
  let store: MemoryExecutionStore;
  beforeEach(() => (store = new MemoryExecutionStore()));

  describe('records', () => {
    it('gives back what was created; an unknown id is undefined', async () => {
      const record = anExecutionRecord({ ownerId: 'alice', clientAddress: '10.0.0.1' });
      await store.create(record);
      expect(await store.get(record.id)).toEqual(record);
      expect(await store.get('unknown')).toBeUndefined();
    });

    it('refuses a second record with the same id', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      await expect(store.create({ ...record, workflow: 'other' })).rejects.toThrow(/already exists/);
      expect((await store.get(record.id))!.workflow).toBe(record.workflow);
    });

    it('update applies a patch and returns the new record; an unknown id is undefined', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const updated = await store.update(record.id, { status: 'completed', result: { value: 42 } });
      expect(updated).toEqual({ ...record, status: 'completed', result: { value: 42 } });
      expect(await store.get(record.id)).toEqual(updated);
      expect(await store.update('unknown', { status: 'failed' })).toBeUndefined();
    });

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      record.status = 'failed';
      const got = (await store.get(record.id))!;
      got.status = 'completed';
      got.interactions.x = anOpenInteraction();
      expect(await store.get(record.id)).toMatchObject({ status: 'running', interactions: {} });
    });

    it('delete removes a record; deleting an unknown id is no error', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      await store.delete(record.id);
      expect(await store.get(record.id)).toBeUndefined();
      await expect(store.delete(record.id)).resolves.toBeUndefined();
    });
  });

  describe('interactions', () => {
    it('opening one makes the execution wait on it', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const interaction = anOpenInteraction(aPrompt('radio'));
      await store.openInteraction(record.id, 'i1', interaction);
      expect(await store.get(record.id)).toMatchObject({
        status: 'interaction_required',
        openInteractionId: 'i1',
        interactions: { i1: interaction },
      });
    });

    it('opening one on an unknown execution is an error', async () => {
      await expect(store.openInteraction('unknown', 'i1', anOpenInteraction())).rejects.toThrow(/not found/);
    });

    it('closing is a compare-and-set: the first close wins, later ones see it already closed', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      await store.openInteraction(record.id, 'i1', anOpenInteraction());
      const outcomes = await Promise.all([
        store.closeInteraction(record.id, 'i1', 'resolved'),
        store.closeInteraction(record.id, 'i1', 'expired'),
        store.closeInteraction(record.id, 'i1', 'cancelled'),
      ]);
      expect(outcomes).toEqual(['closed', 'already_closed', 'already_closed']);
      const after = (await store.get(record.id))!;
      expect(after.interactions.i1.status).toBe('resolved');
      expect(after.status).toBe('running');
      expect(after.openInteractionId).toBeUndefined();
    });

    it('closing an unknown execution or interaction is not_found', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      expect(await store.closeInteraction('unknown', 'i1', 'resolved')).toBe('not_found');
      expect(await store.closeInteraction(record.id, 'i1', 'resolved')).toBe('not_found');
    });

    it('closing an earlier interaction leaves the current one waiting', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      await store.openInteraction(record.id, 'i1', anOpenInteraction());
      await store.openInteraction(record.id, 'i2', anOpenInteraction());
      expect(await store.closeInteraction(record.id, 'i1', 'cancelled')).toBe('closed');
      expect(await store.get(record.id)).toMatchObject({
        status: 'interaction_required',
        openInteractionId: 'i2',
      });
    });
  });

  describe('counting executions that wait for a person', () => {
    async function started(ownerId: string | null, clientAddress?: string) {
      const record = anExecutionRecord({ ownerId, clientAddress });
      await store.create(record);
      return record.id;
    }

    it('counts all of them, one owner’s (null: anonymous), and those from one address', async () => {
      const a1 = await started('alice', '10.0.0.1');
      const a2 = await started('alice', '10.0.0.2');
      const anon = await started(null, '10.0.0.1');
      await started('bob', '10.0.0.1');
      await store.openInteraction(a1, 'i', anOpenInteraction());
      await store.update(a2, { status: 'oauth_required' });
      await store.openInteraction(anon, 'i', anOpenInteraction());
      expect(await store.countWaiting()).toBe(3);
      expect(await store.countWaiting('alice')).toBe(2);
      expect(await store.countWaiting(null)).toBe(1);
      expect(await store.countWaiting('bob')).toBe(0);
      expect(await store.countWaitingFrom('10.0.0.1')).toBe(2);
      expect(await store.countWaitingFrom('10.0.0.2')).toBe(1);
      expect(await store.countWaitingFrom('10.0.0.9')).toBe(0);
    });

    it('follows every change of status: answered, waiting again, ended, deleted', async () => {
      const id = await started('alice', '10.0.0.1');
      const other = await started('alice', '10.0.0.1');
      await store.openInteraction(id, 'i1', anOpenInteraction());
      await store.openInteraction(other, 'i1', anOpenInteraction());
      expect(await store.countWaiting('alice')).toBe(2);
      await store.closeInteraction(id, 'i1', 'resolved');
      expect(await store.countWaiting('alice')).toBe(1);
      await store.openInteraction(id, 'i2', anOpenInteraction());
      // a second prompt while one is already open does not count the execution twice
      await store.openInteraction(id, 'i3', anOpenInteraction());
      expect(await store.countWaiting('alice')).toBe(2);
      await store.update(id, { status: 'failed' });
      expect(await store.countWaiting('alice')).toBe(1);
      await store.delete(other);
      expect(await store.countWaiting()).toBe(0);
      expect(await store.countWaiting('alice')).toBe(0);
      expect(await store.countWaitingFrom('10.0.0.1')).toBe(0);
    });
  });

  describe('evictExpired', () => {
    it('removes the records whose expiresAt has come, and only those, returning their ids', async () => {
      const now = 1_000_000;
      const due = anExecutionRecord({ status: 'completed', expiresAt: now - 1 });
      const exactly = anExecutionRecord({ status: 'failed', expiresAt: now });
      const later = anExecutionRecord({ status: 'completed', expiresAt: now + 1 });
      const live = anExecutionRecord();
      for (const r of [due, exactly, later, live]) await store.create(r);
      expect((await store.evictExpired(now)).sort()).toEqual([due.id, exactly.id].sort());
      expect(await store.get(due.id)).toBeUndefined();
      expect(await store.get(exactly.id)).toBeUndefined();
      expect(await store.get(later.id)).toBeDefined();
      expect(await store.get(live.id)).toBeDefined();
      expect(await store.evictExpired(now)).toEqual([]);
    });
  });
});
