import { alreadyResolved, call, DEFAULT_PROMPT_ERROR, Executions } from '../utils/hitl';
import { openStream, streamLines, type Frame, type LiveStream } from '../utils/live-sse';
import { postJson } from '../utils/sse';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const user = (content: string) => ({ messages: [{ role: 'user', content }] });

interface InteractionEvent {
  event_type: string;
  execution_id: string;
  interaction_id: string;
  prompt: Record<string, unknown>;
  response_url: string;
}

const STEPS = `- stream: { text: 'before the question' }
- prompt: { input_type: text, text: 'Your name, {{input}}?', placeholder: 'A name', save_as: name }
- step: { name: lookup, kind: tool, input: { who: '{{name}}' }, payload: { ok: true } }
- stream: { text: 'after {{name}}', delay_seconds: 0.01 }`;
const YAML = scriptedYaml(STEPS, 'Hello {{name}}');

/** Every frame of an interactive stream carries `id: <n>`, increasing (but a first stream's trace preamble). */
function expectNumbered(frames: Frame[]): number[] {
  const real = frames.filter((f) => !f.comment);
  if (real[0]?.fields.observability_trace !== undefined) {
    expect(real[0].id).toBeUndefined();
    real.shift();
  }
  expect(real.length).toBeGreaterThan(0);
  for (const f of real) expect(f.raw).toMatch(/^id: \d+\n/);
  const ids = real.map((f) => f.id!);
  ids.forEach((id, i) => {
    if (i > 0) expect(id).toBeGreaterThan(ids[i - 1]);
  });
  return ids;
}

const valuesOf = (s: LiveStream) => s.dataFrames().map((d) => (d.json as { value: string }).value);
const chatTextOf = (s: LiveStream) =>
  s
    .dataFrames()
    .map((d) => (d.json as { choices: { delta: { content?: string } }[] }).choices[0].delta.content ?? '')
    .join('');

describe('HITL streaming: prompts as typed SSE events', () => {
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    t = await startApp(YAML);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  it.each([
    ['/v1/workflow/stream', { input_message: 'Ann' }],
    ['/v1/workflow/full', { input_message: 'Ann' }],
    ['/v1/chat/stream', user('Ann')],
  ])(
    '%s: event: interaction_required, the stream stays open, an answer on another connection resumes it',
    async (path, body) => {
      const stream = await openStream(`${t.url}${path}`, { body });
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      const id = stream.headers['x-execution-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);

      const frame = await stream.next((f) => f.event === 'interaction_required');
      const event = JSON.parse(frame.data!) as InteractionEvent;
      expect(event).toEqual({
        event_type: 'interaction_required',
        execution_id: id,
        interaction_id: event.interaction_id,
        prompt: {
          input_type: 'text',
          text: 'Your name, Ann?',
          placeholder: 'A name',
          required: true,
          timeout: null,
          error: DEFAULT_PROMPT_ERROR,
        },
        response_url: `/executions/${id}/interactions/${event.interaction_id}/response`,
      });
      // the stream stays open, with nothing more to say until someone answers
      expect(await stream.quietFor(150)).toBe(true);
      const polled = await ex.status(id);
      expect(polled.json).toMatchObject({
        status: 'interaction_required',
        interaction_id: event.interaction_id,
      });

      const answer = await ex.answer(event.response_url, { input_type: 'text', text: 'Ada' });
      expect(answer.status).toBe(204);
      await stream.end();
      expectNumbered(stream.frames);
      // output before the question came before the event; the rest after the answer
      const at = stream.frames.indexOf(frame);
      expect(stream.frames.slice(0, at).some((f) => f.data !== undefined)).toBe(true);
      if (path.startsWith('/v1/chat')) {
        expect(chatTextOf(stream)).toBe('before the questionafter AdaHello Ada');
        expect(stream.text).not.toContain('[DONE]');
      } else {
        expect(valuesOf(stream)).toEqual(['before ', 'the ', 'question', 'after ', 'Ada', 'Hello Ada']);
        expect(stream.frames.some((f) => f.fields.intermediate_data?.includes('Ada'))).toBe(true);
      }
      // the execution can be polled afterwards, its result in the starting route's format
      const done = await ex.ended(id);
      expect(done.status).toBe('completed');
      if (path.startsWith('/v1/chat')) {
        expect(done.result).toMatchObject({
          object: 'chat.completion',
          choices: [{ message: { content: 'Hello Ada' } }],
        });
      } else {
        expect(done.result).toEqual({ value: 'Hello Ada' });
      }
      const late = await ex.answer(event.response_url, { type: 'text', text: 'Bob' });
      expect(late.status).toBe(400);
      expect(late.json).toEqual(alreadyResolved(event.interaction_id));
    },
  );

  it('a rejected answer (422) leaves the stream waiting; a good one resumes it', async () => {
    const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'x' } });
    const event = await stream.nextEvent<InteractionEvent>('interaction_required');
    expect(
      (await ex.answer(event.response_url, { type: 'radio', selected_option: { id: 'a' } })).status,
    ).toBe(422);
    expect(await stream.quietFor(100)).toBe(true);
    expect((await ex.answer(event.response_url, { type: 'text', text: 'Cy' })).status).toBe(204);
    await stream.end();
    expect(valuesOf(stream).at(-1)).toBe('Hello Cy');
  });

  it('a failure after the answer: event: error is the last frame and the stream ends', async () => {
    const f = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Name?', save_as: name }\n- fail: { message: 'no {{name}}', error_type: KeyError }`,
        'unused',
      ),
    );
    try {
      for (const [path, body] of [
        ['/v1/workflow/stream', { input_message: 'x' }],
        ['/v1/chat/stream', user('x')],
      ] as const) {
        const stream = await openStream(`${f.url}${path}`, { body });
        const event = await stream.nextEvent<InteractionEvent>('interaction_required');
        await new Executions(f.url).answer(event.response_url, { type: 'text', text: 'Dee' });
        await stream.end();
        expectNumbered(stream.frames);
        const last = stream.frames[stream.frames.length - 1];
        expect(last.event).toBe('error');
        expect(JSON.parse(last.data!)).toEqual({
          code: 'workflow_error',
          message: 'no Dee',
          details: 'KeyError',
        });
        expect((await new Executions(f.url).status(event.execution_id)).json).toEqual({
          execution_id: event.execution_id,
          status: 'failed',
          error: 'no Dee',
        });
      }
    } finally {
      await f.close();
    }
  });

  it('DELETE while a stream waits on a prompt: event: error, the stream ends, the answer is 400', async () => {
    const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'x' } });
    const event = await stream.nextEvent<InteractionEvent>('interaction_required');
    expect((await ex.cancel(event.execution_id)).status).toBe(204);
    await stream.end();
    const last = stream.frames[stream.frames.length - 1];
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data!)).toMatchObject({ details: 'ExecutionCancelled' });
    expect((await ex.answer(event.response_url, { type: 'text', text: 'x' })).status).toBe(400);
    expect((await ex.status(event.execution_id)).json.error).toBe('Execution cancelled');
  });

  it('a notification is shown as an event but not waited on', async () => {
    const n = await startApp(
      scriptedYaml(`- prompt: { input_type: notification, text: 'Heads up, {{input}}' }`, 'noted'),
    );
    try {
      const stream = await openStream(`${n.url}/v1/workflow/stream`, { body: { input_message: 'Eli' } });
      await stream.end();
      const event = JSON.parse(stream.frames.find((f) => f.event === 'interaction_required')!.data!);
      expect(event.prompt).toEqual({
        input_type: 'notification',
        text: 'Heads up, Eli',
        timeout: null,
        error: DEFAULT_PROMPT_ERROR,
      });
      expect(valuesOf(stream)).toEqual(['noted']);
      expectNumbered(stream.frames);
    } finally {
      await n.close();
    }
  });
});

/**
 * The spec's Python client (`stream_with_interactions`), line for line: iterate lines; on
 * `event: interaction_required` the next line is the data; answer it at response_url as text; return
 * the first `data:` chunk that has a `value`.
 */
async function streamWithInteractions(
  baseUrl: string,
  path: string,
  body: unknown,
  reply: (question: string) => string,
  asked: string[],
): Promise<unknown> {
  const { lines, close } = await streamLines(`${baseUrl}${path}`, body);
  try {
    for (;;) {
      const { value: line, done } = await lines.next();
      if (done) break;
      if (!line) continue;
      if (line.startsWith('event: interaction_required')) {
        const dataLine = (await lines.next()).value as string;
        const event = JSON.parse(dataLine.replace(/^data: /, '')) as InteractionEvent;
        asked.push(event.prompt.text as string);
        await fetch(`${baseUrl}${event.response_url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            response: { input_type: 'text', text: reply(event.prompt.text as string) },
          }),
        });
        continue;
      }
      if (line.startsWith('event: oauth_required')) {
        await lines.next();
        continue;
      }
      if (line.startsWith('data: ')) {
        const chunk = JSON.parse(line.replace(/^data: /, '')) as Record<string, unknown>;
        if ('value' in chunk) return chunk.value;
      }
    }
    return '';
  } finally {
    close();
  }
}

describe("HITL streaming: the spec's Python client, ported", () => {
  it('works unchanged on /v1/workflow/stream, through several prompts', async () => {
    const t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'First name?', save_as: first }
- prompt: { input_type: text, text: 'Last name, {{first}}?', save_as: last }`,
        '{{input}}: {{first}} {{last}}',
      ),
    );
    try {
      const asked: string[] = [];
      const replies: Record<string, string> = { 'First name?': 'Grace', 'Last name, Grace?': 'Hopper' };
      const value = await streamWithInteractions(
        t.url,
        '/v1/workflow/stream',
        { input_message: 'who' },
        (q) => replies[q],
        asked,
      );
      expect(asked).toEqual(['First name?', 'Last name, Grace?']);
      expect(value).toBe('who: Grace Hopper');
    } finally {
      await t.close();
    }
  });
});

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
    const { frame, received, event } = await dropAtPrompt();
    const id = event.execution_id;
    // the execution is not cancelled by the drop (on_disconnect: continue)
    await new Promise((r) => setTimeout(r, 100));
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
    expect(await resumed.quietFor(100)).toBe(true);
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
