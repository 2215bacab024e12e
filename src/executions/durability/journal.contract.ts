import type { Journal } from './journal';

/**
 * What every Journal adapter must do. A spec per adapter calls this with a factory for a fresh journal;
 * `makePeer` opens the same journal as another process would.
 */
export function journalContract(
  name: string,
  makeJournal: () => Promise<Journal> | Journal,
  makePeer?: () => Promise<Journal>,
) {
  describe(`Journal contract: ${name}`, () => {
    let journal: Journal;
    const id = () => `e-${Math.random().toString(36).slice(2)}`;
    beforeEach(async () => {
      journal = await makeJournal();
    });

    it('gives back what was journaled, in the order it was journaled, and nothing for another execution', async () => {
      const execution = id();
      const response = { content: 'hi', toolCalls: [], usage: null };
      expect(await journal.append(execution, { point: '1', kind: 'llm', value: response })).toEqual(response);
      await journal.append(execution, { point: '3', kind: 'tool:x', value: 'done' });
      await journal.append(execution, { point: '2.1', kind: 'interaction', value: 'i-1' });
      expect(await journal.read(execution)).toEqual([
        { point: '1', kind: 'llm', value: response },
        { point: '3', kind: 'tool:x', value: 'done' },
        { point: '2.1', kind: 'interaction', value: 'i-1' },
      ]);
      expect(await journal.read(id())).toEqual([]);
    });

    it('keeps the first value of a point: a later write is told the value held', async () => {
      const execution = id();
      expect(await journal.append(execution, { point: '1', kind: 'random', value: 0.25 })).toBe(0.25);
      expect(await journal.append(execution, { point: '1', kind: 'random', value: 0.75 })).toBe(0.25);
      expect(await journal.read(execution)).toEqual([{ point: '1', kind: 'random', value: 0.25 }]);
    });

    it('keeps JSON values as JSON: an undefined result reads back undefined, nested data intact', async () => {
      const execution = id();
      await journal.append(execution, { point: '1', kind: 'tool:x', value: undefined });
      await journal.append(execution, {
        point: '2',
        kind: 'tool:y',
        value: { a: [1, 'two', null], b: '\u0000' },
      });
      const [first, second] = await journal.read(execution);
      expect(first.value).toBeUndefined();
      expect(second.value).toEqual({ a: [1, 'two', null], b: '\u0000' });
    });

    it("keeps the log's seq an entry was journaled at, when it has one", async () => {
      const execution = id();
      await journal.append(execution, { point: '1', kind: 'llm', value: 'a', seq: 7 });
      await journal.append(execution, { point: '2', kind: 'now', value: 2 });
      expect(await journal.read(execution)).toStrictEqual([
        { point: '1', kind: 'llm', value: 'a', seq: 7 },
        { point: '2', kind: 'now', value: 2 },
      ]);
    });

    it('forgets an execution on delete, and only that one', async () => {
      const [gone, kept] = [id(), id()];
      await journal.append(gone, { point: '1', kind: 'now', value: 1 });
      await journal.append(kept, { point: '1', kind: 'now', value: 2 });
      await journal.delete(gone);
      expect(await journal.read(gone)).toEqual([]);
      expect(await journal.read(kept)).toEqual([{ point: '1', kind: 'now', value: 2 }]);
    });

    if (makePeer) {
      it('across processes: of replicas racing on one point, all go on with the same value', async () => {
        const peers = [journal, await makePeer(), await makePeer()];
        const execution = id();
        const values = await Promise.all(
          peers.map((p, i) => p.append(execution, { point: '1', kind: 'uuid', value: `v${i}` })),
        );
        expect(new Set(values).size).toBe(1);
        expect(await peers[1].read(execution)).toEqual([{ point: '1', kind: 'uuid', value: values[0] }]);
      });
    }
  });
}
