import { randomUUID } from 'node:crypto';
import {
  errorCodeOf,
  interruptsOf,
  postRun,
  RecordingAgent,
  textOf,
  type RawRun,
} from '../utils/agui-client';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const TWO_ASKS = `- prompt: { input_type: radio, text: 'Colour?', options: [{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }], save_as: colour }
- prompt: { input_type: text, text: 'Name?', save_as: name }`;

/** The interrupt a raw (guard-free) run ended with. */
function interruptOfRaw(run: RawRun): { id: string; expiresAt?: string } {
  expect(run.status).toBe(200);
  return interruptsOf(run.events)[0];
}

describe('AG-UI: the interrupt contract rules, from a fresh agent that bypasses the client’s guard', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(TWO_ASKS, '{{colour}} for {{name}}'));
    url = `${t.url}/v1/ag-ui`;
  });
  afterAll(() => t.close());

  /** A thread paused on the colour question. */
  async function paused(): Promise<{ threadId: string; id: string }> {
    const threadId = randomUUID();
    const run = await postRun(url, { threadId, messages: [{ id: 'u', role: 'user', content: 'hi' }] });
    return { threadId, id: interruptOfRaw(run).id };
  }

  it('input without a resume on a thread with pending interrupts: PENDING_INTERRUPTS, the interrupt stays open', async () => {
    const { threadId, id } = await paused();
    expect(errorCodeOf(await postRun(url, { threadId }))).toBe('PENDING_INTERRUPTS');
    expect(errorCodeOf(await postRun(url, { threadId, resume: [] }))).toBe('PENDING_INTERRUPTS');
    const next = await postRun(url, {
      threadId,
      resume: [{ interruptId: id, status: 'resolved', payload: 'g' }],
    });
    expect(interruptOfRaw(next).id).not.toBe(id);
  });

  it('an unknown interrupt id: UNKNOWN_INTERRUPT_ID', async () => {
    const { threadId, id } = await paused();
    const run = await postRun(url, {
      threadId,
      resume: [
        { interruptId: id, status: 'resolved', payload: 'g' },
        { interruptId: 'int-nope', status: 'resolved', payload: 'g' },
      ],
    });
    expect(errorCodeOf(run)).toBe('UNKNOWN_INTERRUPT_ID');
  });

  it('a resume that leaves an open interrupt: PARTIAL_RESUME', async () => {
    const { threadId, id } = await paused();
    const second = interruptOfRaw(
      await postRun(url, { threadId, resume: [{ interruptId: id, status: 'resolved', payload: 'r' }] }),
    );
    // It names the interrupt answered before, not the one open now.
    const run = await postRun(url, { threadId, resume: [{ interruptId: id, status: 'cancelled' }] });
    expect(errorCodeOf(run)).toBe('PARTIAL_RESUME');
    const done = await postRun(url, {
      threadId,
      resume: [{ interruptId: second.id, status: 'resolved', payload: 'Ada' }],
    });
    expect(textOf(done.events)).toBe('red for Ada');
  });

  it('a payload that fails the responseSchema: INVALID_PAYLOAD, then a valid one is accepted', async () => {
    const { threadId, id } = await paused();
    for (const payload of ['purple', 42, undefined]) {
      const run = await postRun(url, {
        threadId,
        resume: [{ interruptId: id, status: 'resolved', payload }],
      });
      expect(errorCodeOf(run)).toBe('INVALID_PAYLOAD');
    }
    const ok = await postRun(url, {
      threadId,
      resume: [{ interruptId: id, status: 'resolved', payload: 'g' }],
    });
    expect(interruptOfRaw(ok).id).not.toBe(id);
  });

  it('a second run while one streams on the thread: THREAD_BUSY; leaving cancels the first run', async () => {
    const slow = await startApp(scriptedYaml(`- stream: { text: 'one two three', delay_seconds: 30 }`));
    try {
      const threadId = randomUUID();
      const leave = new AbortController();
      const first = await fetch(`${slow.url}/v1/ag-ui`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ threadId, runId: 'r1', messages: [] }),
        signal: leave.signal,
      });
      const executionId = first.headers.get('x-execution-id')!;
      const reader = first.body!.getReader();
      expect(Buffer.from((await reader.read()).value!).toString()).toContain('RUN_STARTED');
      expect(errorCodeOf(await postRun(`${slow.url}/v1/ag-ui`, { threadId }))).toBe('THREAD_BUSY');
      leave.abort();
      await eventually(async () => {
        const status = (await (await fetch(`${slow.url}/executions/${executionId}`)).json()) as {
          status: string;
        };
        expect(status.status).toBe('failed');
      });
    } finally {
      await slow.close();
    }
  });

  it('past expiresAt a resolved resume gets INTERRUPT_EXPIRED; cancelling it gets the thread past it', async () => {
    const quick = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Quick!', timeout: 0.3, allow_cancel: true, save_as: a }`,
        'got {{a}}',
      ),
    );
    try {
      const threadId = randomUUID();
      const qurl = `${quick.url}/v1/ag-ui`;
      const ask = interruptOfRaw(await postRun(qurl, { threadId, messages: [] }));
      const expiresAt = Date.parse(ask.expiresAt!);
      expect(expiresAt).toBeGreaterThan(Date.now() - 1000);
      await eventually(() => expect(Date.now()).toBeGreaterThan(expiresAt));
      const late = await postRun(qurl, {
        threadId,
        resume: [{ interruptId: ask.id, status: 'resolved', payload: 'x' }],
      });
      expect(errorCodeOf(late)).toBe('INTERRUPT_EXPIRED');
      const cancelled = await postRun(qurl, {
        threadId,
        resume: [{ interruptId: ask.id, status: 'cancelled' }],
      });
      expect(cancelled.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    } finally {
      await quick.close();
    }
  });

  it('replaying an identical resume re-attaches to what it started and does not answer twice', async () => {
    const { threadId, id } = await paused();
    const resume = [{ interruptId: id, status: 'resolved', payload: 'g' }];
    const first = await postRun(url, { threadId, resume });
    const replay = await postRun(url, { threadId, resume });
    expect(interruptOfRaw(replay).id).toBe(interruptOfRaw(first).id);
    const done = await postRun(url, {
      threadId,
      resume: [{ interruptId: interruptOfRaw(first).id, status: 'resolved', payload: 'Ada' }],
    });
    expect(textOf(done.events)).toBe('green for Ada');
  });

  it('a prompt answered over HTTP while the thread waits: the next run shows it resolved', async () => {
    const agent = new RecordingAgent(url).say('hi');
    const [ask] = interruptsOf(await agent.run());
    const { executionId } = (ask.metadata as { interlude: { executionId: string } }).interlude;
    const answered = await fetch(`${t.url}/executions/${executionId}/interactions/${ask.id}/response`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        response: { type: 'radio', selected_option: { id: 'r', label: 'Red', value: 'red' } },
      }),
    });
    expect(answered.status).toBe(204);
    // The client still holds the interrupt and resumes it; the first answer (red) stands.
    const [name] = interruptsOf(await agent.resume({ [ask.id]: 'g' }));
    const done = await agent.resume({ [name.id]: 'Ada' });
    expect(textOf(done)).toBe('red for Ada');
  });

  it('another identity gets 404 for the thread and cannot resume it', async () => {
    const alice = { authorization: 'Bearer nvapi-alice' };
    const threadId = randomUUID();
    const ask = interruptOfRaw(await postRun(url, { threadId, messages: [] }, alice));
    const bob = await postRun(
      url,
      { threadId, resume: [{ interruptId: ask.id, status: 'resolved', payload: 'g' }] },
      { authorization: 'Bearer nvapi-bob' },
    );
    expect(bob.status).toBe(404);
    const own = await postRun(
      url,
      { threadId, resume: [{ interruptId: ask.id, status: 'resolved', payload: 'g' }] },
      alice,
    );
    expect(own.status).toBe(200);
  });
});
