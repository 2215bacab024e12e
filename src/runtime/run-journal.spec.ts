import { ANONYMOUS } from '../core/identity/identity';
import type { BuiltFunction } from './function-type';
import { HandedOver, RunJournal, type JournalEntry } from './run-journal';
import type { WorkflowContext } from './workflow-context';
import { runWorkflow } from './workflow-runner';

/** A journal that keeps what is written, as the engine's store would. */
function aJournal(entries: JournalEntry[] = []) {
  const written: JournalEntry[] = [];
  const journal = new RunJournal(entries, async (entry) => {
    written.push(entry);
    return entry.value;
  });
  return { journal, written };
}

const request = { method: 'POST', path: '/', headers: {}, query: {}, cookies: {} };

function run(fn: (ctx: WorkflowContext) => Promise<unknown>, journal?: RunJournal) {
  const workflow = { type: 't', run: (_input: unknown, ctx: WorkflowContext) => fn(ctx) } as BuiltFunction;
  return runWorkflow(
    workflow,
    {},
    {
      executionId: 'e1',
      identity: ANONYMOUS,
      request,
      signal: new AbortController().signal,
      journal,
      sink: {
        publish: () => undefined,
        prompt: () => Promise.reject(new Error('no')),
        authenticate: () => Promise.reject(new Error('no')),
      },
    },
  );
}

describe('RunJournal', () => {
  it('journals each result at its point, nested work under its point, and a replay returns them without running anything', async () => {
    const { journal, written } = aJournal();
    let calls = 0;
    const tool = (ctx: WorkflowContext) =>
      ctx.journaled('tool:t', async () => {
        calls++;
        return { at: await ctx.now(), key: ctx.idempotencyKey('post') };
      });
    const first = await run(async (ctx) => [await ctx.random(), await tool(ctx), await ctx.uuid()], journal);
    expect(written.map((e) => [e.point, e.kind])).toEqual([
      ['1', 'random'],
      ['2.1', 'now'],
      ['2', 'tool:t'],
      ['3', 'uuid'],
    ]);
    expect((first as unknown[])[1]).toMatchObject({ key: 'e1:2:post' });

    const replay = aJournal(written);
    expect(replay.journal.replaying).toBe(true);
    const again = await run(
      async (ctx) => [await ctx.random(), await tool(ctx), await ctx.uuid()],
      replay.journal,
    );
    expect(again).toEqual(first);
    expect(calls).toBe(1);
    expect(replay.written).toEqual([]);
    expect(replay.journal.replaying).toBe(false);
  });

  it('a replay stays replaying through a point whose inner work was journaled, and goes live past the last entry', async () => {
    const { journal } = aJournal([
      { point: '1', kind: 'llm', value: 'a' },
      { point: '2.1', kind: 'interaction', value: 'i-1' },
    ]);
    const first = journal.point('llm');
    expect(first.recorded).toEqual({ value: 'a' });
    const tool = journal.point('tool:ask');
    expect(tool.recorded).toBeUndefined();
    expect(journal.replaying).toBe(true);
    await journal.within(tool, () => {
      expect(journal.point('interaction').recorded).toEqual({ value: 'i-1' });
    });
    expect(journal.replaying).toBe(false);
  });

  it('a reserved point found empty keeps a replay replaying up to the entries after it; one a journal holds is answered from it', () => {
    const { journal } = aJournal([
      { point: '1', kind: 'llm', value: 'a' },
      { point: '3', kind: 'answer', value: 'yes' },
    ]);
    expect(journal.point('llm').recorded).toEqual({ value: 'a' });
    expect(journal.reserved('interaction').recorded).toBeUndefined();
    expect(journal.replaying).toBe(true);
    expect(journal.point('answer').recorded).toEqual({ value: 'yes' });
    expect(journal.replaying).toBe(false);

    // A point found empty that is not reserved ends the replay at once.
    const other = aJournal([{ point: '2', kind: 'answer', value: 'yes' }]).journal;
    expect(other.point('interaction').recorded).toBeUndefined();
    expect(other.replaying).toBe(false);

    // A journal written when the value was journaled there.
    const older = aJournal([{ point: '1', kind: 'interaction', value: 'i-1' }]).journal;
    expect(older.reserved('interaction').recorded).toEqual({ value: 'i-1' });
    expect(older.replaying).toBe(false);
  });

  it('a run that was handed over journals nothing more, and reaches no prompt', async () => {
    const { journal, written } = aJournal();
    journal.close();
    await expect(journal.journaled('now', () => 1)).rejects.toBeInstanceOf(HandedOver);
    expect(() => journal.reserved('interaction')).toThrow(HandedOver);
    expect(written).toEqual([]);
  });

  it('without a journal (one process), the context members still work and write nothing', async () => {
    const result = (await run(async (ctx) => [
      await ctx.now(),
      await ctx.random(),
      ctx.idempotencyKey(),
    ])) as [number, number, string];
    expect(Math.abs(result[0] - Date.now())).toBeLessThan(5000);
    expect(result[1]).toBeGreaterThanOrEqual(0);
    expect(result[2]).toBe('e1:0');
  });
});
