import { randomUUID } from 'node:crypto';
import { postRun, RecordingAgent, textOf, type AguiEvent } from '../utils/agui-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const ALICE = { authorization: 'Bearer nvapi-alice' };
const BOB = { authorization: 'Bearer nvapi-bob' };

const WORKFLOW = scriptedYaml(
  `- prompt: { input_type: text, text: 'Your name?', save_as: name }
- stream: { text: 'Hello {{name}}. ' }
- prompt: { input_type: text, text: 'Your secret?', save_as: secret }`,
  'Kept {{secret}} for {{name}}',
  `general:
  front_end: { ag_ui_max_threads_per_user: 2 }`,
);

const lastEvent = (events: AguiEvent[]) => events[events.length - 1];

/**
 * AG-UI threads are keyed by their owner and the client's `threadId`: an anonymous thread is reached
 * only with what the server issued its client (its interrupt ids, which no error names), and nobody
 * else's run can take a thread over, evict it while it waits, or squat its id.
 */
describe('AG-UI: one caller cannot reach, evict or squat another caller’s thread', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startApp(WORKFLOW);
    url = `${t.url}/v1/ag-ui`;
  });
  afterAll(() => t.close());

  /** An anonymous victim whose run waits on its first question. */
  async function waitingVictim(at = url): Promise<RecordingAgent> {
    const victim = new RecordingAgent(at).say('hi');
    await victim.run();
    expect(victim.pendingInterrupts).toHaveLength(1);
    return victim;
  }

  it('an attacker who knows an anonymous victim’s thread id learns no interrupt id from the error', async () => {
    const victim = await waitingVictim();
    const [asked] = victim.pendingInterrupts;
    const attacker = new RecordingAgent(url, { threadId: victim.threadId }).say('hi');
    const end = lastEvent(await attacker.run());
    expect(end).toMatchObject({ type: 'RUN_ERROR', code: 'PENDING_INTERRUPTS' });
    expect(JSON.stringify(attacker.events)).not.toContain(asked.id);
    // Nor does a partial resume name the interrupts it leaves open.
    const partial = await postRun(url, {
      threadId: victim.threadId,
      resume: [{ interruptId: 'guess', status: 'cancelled' }],
    });
    expect(partial.body).not.toContain(asked.id);
    // The victim's thread is untouched.
    await victim.resume({ [asked.id]: 'Victor' });
    expect(textOf(victim.events)).toContain('Hello Victor.');
  });

  it('a run without the victim’s interrupts never streams the victim’s execution, even once it goes on', async () => {
    const victim = await waitingVictim();
    const [asked] = victim.pendingInterrupts;
    const executionId = (asked.metadata as { interlude: { executionId: string } }).interlude.executionId;
    // The victim answers on another face; its execution goes on and asks the next question.
    const answered = await fetch(`${t.url}/executions/${executionId}/interactions/${asked.id}/response`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: { type: 'text', text: 'Victor' } }),
    });
    expect(answered.status).toBe(204);
    await eventually(async () => {
      const status = (await (await fetch(`${t.url}/executions/${executionId}`)).json()) as {
        prompt?: unknown;
      };
      expect(status).toMatchObject({ status: 'interaction_required', prompt: { text: 'Your secret?' } });
    });
    const attacker = new RecordingAgent(url, { threadId: victim.threadId }).say('hi');
    await attacker.run();
    expect(textOf(attacker.events)).not.toContain('Victor');
    expect(attacker.pendingInterrupts).toEqual([]);
    // The victim's client, holding its interrupt, resumes and sees its run go on.
    await victim.resume({ [asked.id]: 'ignored: answered already' });
    expect(textOf(victim.events)).toContain('Hello Victor.');
    expect(victim.pendingInterrupts.map((i) => i.message)).toEqual(['Your secret?']);
  });

  it('new threads never evict a thread that waits on an interrupt', async () => {
    const fresh = await startApp(WORKFLOW);
    try {
      const at = `${fresh.url}/v1/ag-ui`;
      const victim = await waitingVictim(at);
      const [asked] = victim.pendingInterrupts;
      // The anonymous pool holds two threads: the attacker's runs fill it and ask for more.
      const runs = [];
      for (let i = 0; i < 2; i++) runs.push(await postRun(at, { threadId: randomUUID(), messages: [] }));
      expect(runs.map((r) => r.status)).toEqual([200, 429]);
      await victim.resume({ [asked.id]: 'Victor' });
      expect(textOf(victim.events)).toContain('Hello Victor.');
    } finally {
      await fresh.close();
    }
  });

  it('an identified user cannot squat another user’s thread id: each has a thread of their own', async () => {
    const threadId = randomUUID();
    const bob = new RecordingAgent(url, { threadId, headers: BOB }).say('hi');
    await bob.run();
    const alice = new RecordingAgent(url, { threadId, headers: ALICE }).say('hi');
    await alice.run();
    expect(alice.pendingInterrupts).toHaveLength(1);
    await alice.resume({ [alice.pendingInterrupts[0].id]: 'Alice' });
    await bob.resume({ [bob.pendingInterrupts[0].id]: 'Bob' });
    expect(textOf(alice.events)).toContain('Hello Alice.');
    expect(textOf(bob.events)).toContain('Hello Bob.');
  });

  it('a resume on a thread the caller does not have is 404, whoever has that thread id', async () => {
    const threadId = randomUUID();
    const alice = new RecordingAgent(url, { threadId, headers: ALICE }).say('hi');
    await alice.run();
    const [asked] = alice.pendingInterrupts;
    const resume = [{ interruptId: asked.id, status: 'resolved', payload: 'Mallory' }];
    expect((await postRun(url, { threadId, resume }, BOB)).status).toBe(404);
    expect((await postRun(url, { threadId, resume })).status).toBe(404);
    expect((await postRun(url, { threadId: randomUUID(), resume }, BOB)).status).toBe(404);
    await alice.resume({ [asked.id]: 'Alice' });
    expect(textOf(alice.events)).toContain('Hello Alice.');
  });
});
