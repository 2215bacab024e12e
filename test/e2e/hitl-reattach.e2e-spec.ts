import { alreadyResolved, call, Executions } from '../utils/hitl';
import { openStream } from '../utils/live-sse';
import { user } from '../utils/chat';
import { type InteractionEvent, YAML, expectNumbered, valuesOf, chatTextOf } from '../utils/hitl-stream';
import { requestsEnded } from '../utils/metrics';
import { postJson } from '../utils/sse';
import { eventually, startApp, type TestApp } from '../utils/test-app';

describe('HITL streaming: re-attaching with Last-Event-ID', () => {
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    t = await startApp(YAML);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  /** Starts a stream, reads up to its interaction_required frame, then drops the connection. */
  async function dropAtPrompt(path = '/v1/workflow/stream', body: unknown = { input_message: 'Ann' }) {
    const stream = await openStream(`${t.url}${path}`, { body });
    const frame = await stream.next((f) => f.event === 'interaction_required');
    const received = stream.frames.slice();
    stream.destroy();
    await stream.ended;
    return { frame, received, event: JSON.parse(frame.data!) as InteractionEvent };
  }

  it('a dropped stream keeps waiting; after the answer, re-attaching sends exactly the missed frames once', async () => {
    const dropped = await requestsEnded(t.url, '/v1/workflow/stream', 499);
    const { frame, received, event } = await dropAtPrompt();
    const id = event.execution_id;
    // once the server has seen the drop, the execution is not cancelled by it (on_disconnect: continue)
    await eventually(async () =>
      expect(await requestsEnded(t.url, '/v1/workflow/stream', 499)).toBe(dropped + 1),
    );
    expect((await ex.status(id)).json).toMatchObject({
      status: 'interaction_required',
      interaction_id: event.interaction_id,
    });
    expect((await ex.answer(event.response_url, { type: 'text', text: 'Ada' })).status).toBe(204);
    expect((await ex.ended(id)).status).toBe('completed');

    const resumed = await openStream(`${t.url}/executions/${id}/stream`, {
      headers: { 'Last-Event-ID': String(frame.id) },
    });
    expect(resumed.status).toBe(200);
    expect(resumed.headers['x-execution-id']).toBe(id);
    await resumed.end();
    const ids = expectNumbered(resumed.frames);
    expect(ids[0]).toBeGreaterThan(frame.id!);
    expect(valuesOf(resumed)).toEqual(['after ', 'Ada', 'Hello Ada']);
    expect(resumed.text).not.toContain('interaction_required');
    expect(resumed.text).not.toContain('before');

    // nothing lost, nothing twice: before-the-drop + resumed is the whole stream (a re-attached stream
    // has no observability_trace preamble: the first stream named the trace already)
    const whole = await openStream(`${t.url}/executions/${id}/stream`);
    await whole.end();
    const events = received.filter((f) => f.fields.observability_trace === undefined);
    expect(received.length - events.length).toBe(1);
    expect([...events, ...resumed.frames].map((f) => f.raw)).toEqual(whole.frames.map((f) => f.raw));
    expect(valuesOf(whole)).toEqual(['before ', 'the ', 'question', 'after ', 'Ada', 'Hello Ada']);
  });

  it('re-attaching while it still waits replays the prompt, then follows the answer live', async () => {
    const { received, event } = await dropAtPrompt('/v1/chat/stream', user('Ann'));
    const id = event.execution_id;
    const beforePrompt = received[received.length - 2];
    const resumed = await openStream(`${t.url}/executions/${id}/stream?last_event_id=${beforePrompt.id}`);
    const replayed = await resumed.nextEvent<InteractionEvent>('interaction_required');
    expect(replayed).toEqual(event);
    expect(await resumed.quietWhile(() => ex.status(id))).toBe(true);
    await ex.answer(event.response_url, { type: 'text', text: 'Bea' });
    await resumed.end();
    expectNumbered(resumed.frames);
    expect(resumed.frames[0].id).toBe(beforePrompt.id! + 1);
    expect(chatTextOf(resumed)).toBe('after BeaHello Bea');
  });

  it('an execution started by POST /v1/workflow (202) can be followed as a stream', async () => {
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'Ann' });
    expect(start.status).toBe(202);
    const id = start.json.execution_id as string;
    const stream = await openStream(`${t.url}/executions/${id}/stream`);
    const event = await stream.nextEvent<InteractionEvent>('interaction_required');
    expect(event.interaction_id).toBe(start.json.interaction_id);
    await ex.answer(event.response_url, { type: 'text', text: 'Cal' });
    await stream.end();
    expectNumbered(stream.frames);
    expect(valuesOf(stream)).toEqual(['before ', 'the ', 'question', 'after ', 'Cal', 'Hello Cal']);
  });

  it.each([
    ['/v1/workflow/stream', { input_message: 'Ann' }],
    ['/v1/chat/stream', user('Ann')],
  ])(
    '%s: re-attaching after the last frame of a finished execution ends at once, with nothing to send',
    async (path, body) => {
      const stream = await openStream(`${t.url}${path}`, { body });
      const event = await stream.nextEvent<InteractionEvent>('interaction_required');
      await ex.answer(event.response_url, { type: 'text', text: 'Dot' });
      await stream.end();
      const lastId = stream.frames[stream.frames.length - 1].id!;
      const resumed = await openStream(`${t.url}/executions/${event.execution_id}/stream`, {
        headers: { 'Last-Event-ID': String(lastId) },
      });
      expect(resumed.status).toBe(200);
      try {
        await resumed.end(1000);
      } finally {
        resumed.destroy();
      }
      expect(resumed.frames.filter((f) => !f.comment)).toEqual([]);
    },
  );

  it('404 when there is no such execution to re-attach to', async () => {
    const res = await call('GET', `${t.url}/executions/00000000-0000-4000-8000-000000000000/stream`);
    expect(res.status).toBe(404);
  });
});

describe('HITL streaming: on_disconnect: cancel', () => {
  it('a dropped interactive stream cancels its execution', async () => {
    const t = await startApp(
      YAML.replace('workflow:', 'general:\n  front_end:\n    on_disconnect: cancel\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'x' } });
      const event = await stream.nextEvent<InteractionEvent>('interaction_required');
      stream.destroy();
      const ended = await eventually(async () => {
        const { json } = await ex.status(event.execution_id);
        expect(json.status).toBe('failed');
        return json;
      });
      expect(ended).toEqual({
        execution_id: event.execution_id,
        status: 'failed',
        error: 'Execution cancelled',
      });
      const late = await ex.answer(event.response_url, { type: 'text', text: 'x' });
      expect(late.status).toBe(400);
      expect(late.json).toEqual(alreadyResolved(event.interaction_id));
    } finally {
      await t.close();
    }
  });
});
