import { alreadyResolved, DEFAULT_PROMPT_ERROR, Executions } from '../utils/hitl';
import { openStream, streamLines } from '../utils/live-sse';
import { user } from '../utils/chat';
import { type InteractionEvent, YAML, expectNumbered, valuesOf, chatTextOf } from '../utils/hitl-stream';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

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
      expect(await stream.quietWhile(() => ex.status(id))).toBe(true);
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
    expect(await stream.quietWhile(() => ex.status(event.execution_id))).toBe(true);
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
