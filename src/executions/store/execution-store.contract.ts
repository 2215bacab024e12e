import type { ExecutionRecord } from '../model/execution-record';
import { IllegalTransition, type ExecutionTransition } from '../model/execution-state';
import type { ExecutionStore } from './execution.store';

const prompt = { input_type: 'text', text: 'Name?', placeholder: '', required: true } as never;

function aRecord(patch: Partial<ExecutionRecord> = {}): ExecutionRecord {
  const now = Date.now();
  return {
    id: `e-${Math.random().toString(36).slice(2)}`,
    traceId: 't',
    ownerId: 'alice',
    clientAddress: '10.0.0.1',
    workflow: 'scripted',
    status: 'running',
    interactive: true,
    createdAt: now,
    updatedAt: now,
    interactions: {},
    ...patch,
  };
}

const open = (interactionId: string): ExecutionTransition => ({
  kind: 'interaction_opened',
  interactionId,
  interaction: { prompt, status: 'open', deadline: null },
});
const close = (interactionId: string, status: 'resolved' | 'expired' | 'cancelled' = 'resolved') =>
  ({ kind: 'interaction_closed', interactionId, status }) as const;

/**
 * What every ExecutionStore adapter must do, whatever keeps the records. A spec per adapter calls
 * this with a factory for a fresh, empty store.
 */
export function executionStoreContract(
  name: string,
  makeStore: () => Promise<ExecutionStore> | ExecutionStore,
  /** Adapters shared by several processes: the same store as another process opens it. */
  makePeer?: () => Promise<ExecutionStore>,
) {
  describe(`ExecutionStore contract: ${name}`, () => {
    let store: ExecutionStore;
    beforeEach(async () => {
      store = await makeStore();
    });

    it('gives back what was created, and nothing for an unknown id', async () => {
      const record = aRecord();
      await store.create(record);
      expect(await store.get(record.id)).toEqual(record);
      expect(await store.get('unknown')).toBeUndefined();
    });

    it('refuses to create the same id twice', async () => {
      const record = aRecord();
      await store.create(record);
      await expect(store.create(record)).rejects.toThrow();
    });

    it('hands out copies: changing a record read does not change the store', async () => {
      const record = aRecord();
      await store.create(record);
      const read = (await store.get(record.id))!;
      read.status = 'completed';
      read.interactions.x = { prompt, status: 'open', deadline: null };
      expect(await store.get(record.id)).toEqual(record);
    });

    it('applies transitions through the state machine', async () => {
      const record = aRecord();
      await store.create(record);
      expect(await store.apply(record.id, open('i1'))).toBe('applied');
      expect(await store.get(record.id)).toMatchObject({
        status: 'interaction_required',
        openInteractionId: 'i1',
        interactions: { i1: { status: 'open' } },
      });
      expect(await store.apply(record.id, close('i1'))).toBe('applied');
      expect(await store.apply(record.id, { kind: 'completed', result: { raw: 1 }, expiresAt: 5 })).toBe(
        'applied',
      );
      expect(await store.get(record.id)).toMatchObject({
        status: 'completed',
        result: { raw: 1 },
        expiresAt: 5,
      });
    });

    it('closes an interaction once: the first close wins, later ones are told it is already closed', async () => {
      const record = aRecord();
      await store.create(record);
      await store.apply(record.id, open('i1'));
      const outcomes = await Promise.all([
        store.apply(record.id, close('i1', 'resolved')),
        store.apply(record.id, close('i1', 'expired')),
        store.apply(record.id, close('i1', 'cancelled')),
      ]);
      expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'already_closed')).toHaveLength(2);
      expect(await store.apply(record.id, close('nope'))).toBe('not_found');
      expect(await store.apply('unknown', close('i1'))).toBe('not_found');
    });

    it("applies a transition to the caller's copy only while the store still holds it: a change made since is kept", async () => {
      const record = aRecord();
      await store.create(record);
      await store.apply(record.id, open('i1'));
      const seen = (await store.get(record.id))!;
      await store.apply(record.id, open('i2'));
      expect(await store.apply(record.id, close('i1'), seen)).toBe('applied');
      const after = (await store.get(record.id))!;
      expect(after.interactions.i1.status).toBe('resolved');
      expect(after.interactions.i2.status).toBe('open');
      // The copy says i1 is open; the store says it is closed: the store decides.
      expect(await store.apply(record.id, close('i1'), seen)).toBe('already_closed');
      const current = (await store.get(record.id))!;
      expect(await store.apply(record.id, close('i2'), current)).toBe('applied');
      expect((await store.get(record.id))!.interactions.i2.status).toBe('resolved');
    });

    it('rejects an illegal transition and leaves the record as it was', async () => {
      const record = aRecord();
      await store.create(record);
      await store.apply(record.id, { kind: 'failed', error: { message: 'x', type: 'Error' }, expiresAt: 5 });
      await expect(store.apply(record.id, open('i1'))).rejects.toThrow(IllegalTransition);
      expect((await store.get(record.id))?.status).toBe('failed');
    });

    it('counts executions waiting for a person: in all, per owner (anonymous together) and per address', async () => {
      const alice = aRecord();
      const anon = aRecord({ ownerId: null, clientAddress: '10.0.0.2' });
      const bob = aRecord({ ownerId: 'bob' });
      for (const r of [alice, anon, bob]) await store.create(r);
      await store.apply(alice.id, open('a'));
      await store.apply(anon.id, {
        kind: 'oauth_pending',
        oauth: { authUrl: 'http://x', state: 's', provider: 'p' },
      });
      expect(await store.countWaiting()).toBe(2);
      expect(await store.countWaiting('alice')).toBe(1);
      expect(await store.countWaiting(null)).toBe(1);
      expect(await store.countWaiting('bob')).toBe(0);
      expect(await store.countWaitingFrom('10.0.0.1')).toBe(1);
      expect(await store.countWaitingFrom('10.0.0.2')).toBe(1);
      await store.apply(alice.id, close('a'));
      await store.delete(anon.id);
      expect(await store.countWaiting()).toBe(0);
      expect(await store.countWaitingFrom('10.0.0.2')).toBe(0);
      expect(await store.get(anon.id)).toBeUndefined();
    });

    it("lists one owner's executions in the asked statuses, newest first, a page at a time", async () => {
      const waiting = (id: string, ownerId: string | null, createdAt: number) =>
        aRecord({ id, ownerId, createdAt, status: 'interaction_required' });
      const mine = [waiting('a', 'alice', 1), waiting('b', 'alice', 3), waiting('c', 'alice', 3)];
      const others = [waiting('d', 'bob', 4), waiting('e', null, 5), aRecord({ id: 'f', createdAt: 6 })];
      for (const r of [...mine, ...others]) await store.create(r);
      const query = { statuses: ['interaction_required', 'oauth_required'] as const, limit: 2 };
      const first = await store.listOwned('alice', query);
      expect(first.map((r) => r.id)).toEqual(['c', 'b']);
      const last = first[first.length - 1];
      const second = await store.listOwned('alice', { ...query, after: last });
      expect(second.map((r) => r.id)).toEqual(['a']);
      expect((await store.listOwned('alice', { ...query, statuses: ['running'] })).map((r) => r.id)).toEqual([
        'f',
      ]);
    });

    it('evicts only finished records whose time is up', async () => {
      const old = aRecord();
      const fresh = aRecord();
      const running = aRecord();
      for (const r of [old, fresh, running]) await store.create(r);
      await store.apply(old.id, { kind: 'completed', result: 1, expiresAt: 1_000 });
      await store.apply(fresh.id, { kind: 'completed', result: 1, expiresAt: 3_000 });
      expect(await store.evictExpired(2_000)).toEqual([old.id]);
      expect(await store.get(old.id)).toBeUndefined();
      expect(await store.get(fresh.id)).toBeDefined();
      expect(await store.get(running.id)).toBeDefined();
    });

    if (makePeer) {
      describe('across processes', () => {
        it('sees what another process created and changed, and counts its waiting executions', async () => {
          const peer = await makePeer();
          const record = aRecord({ ownerId: 'carol', clientAddress: '10.9.9.9' });
          await store.create(record);
          expect(await peer.get(record.id)).toEqual(record);
          expect(await peer.apply(record.id, open('i1'))).toBe('applied');
          expect(await store.get(record.id)).toMatchObject({ status: 'interaction_required' });
          expect(await store.countWaiting('carol')).toBe(1);
          expect(await peer.countWaitingFrom('10.9.9.9')).toBe(1);
        });

        it('a poll on one process shows every change another made before it, also right after it read the record', async () => {
          const peer = await makePeer();
          const record = aRecord();
          await store.create(record);
          const polled = async () => (await store.peek(record.id))?.status;
          expect([await polled(), await polled()]).toEqual(['running', 'running']);
          await peer.apply(record.id, open('i1'));
          expect([await polled(), await polled()]).toEqual(['interaction_required', 'interaction_required']);
          await peer.apply(record.id, close('i1'));
          expect(await polled()).toBe('running');
          await peer.apply(record.id, { kind: 'completed', result: 1, expiresAt: 1_000 });
          expect([await polled(), await polled()]).toEqual(['completed', 'completed']);
          expect(await peer.evictExpired(2_000)).toEqual([record.id]);
          expect(await store.peek(record.id)).toBeUndefined();
        });

        it('starts a change from what it wrote or read last, yet keeps every change another process made since', async () => {
          const peer = await makePeer();
          const record = aRecord();
          await store.create(record);
          expect(await store.apply(record.id, open('i1'))).toBe('applied');
          expect(await peer.apply(record.id, open('i2'))).toBe('applied');
          expect(await store.apply(record.id, close('i1'))).toBe('applied');
          expect((await peer.get(record.id))!.interactions).toMatchObject({
            i1: { status: 'resolved' },
            i2: { status: 'open' },
          });
          // What it knows of the record may be out of date: a change checked against it is still the store's to decide.
          expect(await peer.apply(record.id, close('i2', 'expired'))).toBe('applied');
          const known = store.recent(record.id) ?? (await store.get(record.id))!;
          expect(await store.apply(record.id, close('i2'), known)).toBe('already_closed');
          expect((await store.get(record.id))!.interactions.i2.status).toBe('expired');
          await peer.delete(record.id);
          expect(await store.apply(record.id, close('i1'))).toBe('not_found');
        });

        it('of answers, timeouts and cancels racing on several processes, exactly one closes the interaction', async () => {
          const peers = [store, await makePeer(), await makePeer()];
          for (let round = 0; round < 5; round++) {
            const record = aRecord();
            await store.create(record);
            await store.apply(record.id, open('i1'));
            const statuses = ['resolved', 'expired', 'cancelled'] as const;
            const outcomes = await Promise.all(
              peers.flatMap((p, i) => [
                p.apply(record.id, close('i1', statuses[i])),
                p.apply(record.id, close('i1')),
              ]),
            );
            expect(outcomes.filter((o) => o === 'applied')).toHaveLength(1);
            expect(outcomes.filter((o) => o === 'already_closed')).toHaveLength(5);
          }
        });
      });
    }
  });
}
