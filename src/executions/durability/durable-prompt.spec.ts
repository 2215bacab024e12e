import { RunJournal, type JournalEntry } from '../../runtime/run-journal';
import type { Prompt, PromptAnswer } from '../../runtime/prompts';
import type { InteractionRecord } from '../../interactions/interaction-record';
import { durablePrompt, promptEntries, type PromptingRun } from './durable-prompt';

const PROMPT = { input_type: 'text', text: 'Your name?' } as Prompt;
const ANSWER = { type: 'text', text: 'Ada' } as PromptAnswer;

/** A run whose person answers at once; what it was asked (id, point, again) and read is kept. */
function aRun(recorded: Record<string, InteractionRecord> = {}) {
  const asked: { id: string | undefined; point?: string; again?: true }[] = [];
  const reads: string[] = [];
  const run: PromptingRun = {
    interactive: true,
    ask: (_prompt, id, point) => {
      asked.push({ id, ...(point !== undefined && { point }) });
      return Promise.resolve(ANSWER);
    },
    askAgain: (_prompt, id) => {
      asked.push({ id, again: true });
      return Promise.resolve(ANSWER);
    },
    recorded: (id) => {
      reads.push(id);
      return Promise.resolve(recorded[id]);
    },
  };
  return { run, asked, reads };
}

function aJournal(entries: JournalEntry[] = []) {
  const written: JournalEntry[] = [];
  const journal = new RunJournal(entries, (entry) => {
    written.push(entry);
    return Promise.resolve(entry.value);
  });
  return { journal, written };
}

function ask(run: PromptingRun, journal: RunJournal, interactionId?: string): Promise<PromptAnswer> {
  const points = { interaction: journal.reserved('interaction'), answer: journal.reserved('answer') };
  return durablePrompt(run, PROMPT, interactionId, points);
}

describe('durablePrompt', () => {
  it('asks with its point and journals nothing (the record keeps the interaction and its answer)', async () => {
    const { run, asked, reads } = aRun();
    const { journal, written } = aJournal();
    await expect(ask(run, journal)).resolves.toEqual(ANSWER);
    await ask(run, journal, 'approval-7');
    expect(asked).toEqual([
      { id: expect.stringMatching(/^[0-9a-f-]{36}$/) as string, point: '1' },
      { id: 'approval-7', point: '3' },
    ]);
    expect(written).toEqual([]);
    expect(reads).toEqual([]);
  });

  it('a run taken over waits again on an interaction the record holds, under its id, and then journals nothing', async () => {
    const open = { prompt: PROMPT, status: 'open', deadline: null, at: { point: '1', seq: 4 } } as const;
    const record = { interactions: { 'i-1': open, 'i-shown': { ...open, at: undefined } } };
    const entries = promptEntries(record);
    expect(entries).toEqual([{ point: '1', kind: 'interaction', value: 'i-1', seq: 4 }]);

    const { run, asked, reads } = aRun(record.interactions);
    const { journal, written } = aJournal(entries);
    expect(journal.replaying).toBe(true);
    await ask(run, journal);
    expect(reads).toEqual(['i-1']);
    expect(asked).toEqual([{ id: 'i-1', again: true }]);
    expect(journal.replaying).toBe(false);
    expect(written).toEqual([]);
  });

  it('uses a journal written when prompts had rows: the id, and an answer without asking', async () => {
    const answered = aRun();
    const rows: JournalEntry[] = [
      { point: '1', kind: 'interaction', value: 'i-old', seq: 2 },
      { point: '2', kind: 'answer', value: ANSWER, seq: 3 },
    ];
    await expect(ask(answered.run, aJournal(rows).journal)).resolves.toEqual(ANSWER);
    expect(answered.asked).toEqual([]);

    // Its id journaled, the replica gone before it recorded the wait: asked under that id.
    const unopened = aRun();
    await ask(unopened.run, aJournal(rows.slice(0, 1)).journal);
    expect(unopened.reads).toEqual(['i-old']);
    expect(unopened.asked).toEqual([{ id: 'i-old', point: '1' }]);
  });
});
