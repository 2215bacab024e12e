import { Executions, NAME_YAML, type Pause } from '../utils/hitl';
import { openStream } from '../utils/live-sse';
import { user } from '../utils/chat';
import { postJson, postStream } from '../utils/sse';
import { startApp, type TestApp } from '../utils/test-app';

describe('HITL: which routes are interactive', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(NAME_YAML)));
  afterAll(() => t.close());

  it.each([
    ['/generate', '/v1/workflow', { input_message: 'x' }],
    ['/chat', '/v1/chat', user('x')],
  ])('legacy %s: a prompt fails the workflow, naming %s', async (path, instead, body) => {
    const res = await postJson(`${t.url}${path}`, body);
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      code: 'workflow_error',
      message: `This workflow tried to ask a person (ctx.prompt), but ${path} is not an interactive route. Use the interactive route ${instead} instead.`,
      details: 'NotInteractiveError',
    });
  });

  it.each([
    ['/generate/stream', '/v1/workflow/stream', { input_message: 'x' }],
    ['/generate/full', '/v1/workflow/full', { input_message: 'x' }],
    ['/chat/stream', '/v1/chat/stream', user('x')],
  ])('legacy %s: the stream ends with the error, naming %s', async (path, instead, body) => {
    const res = await postStream(`${t.url}${path}`, body);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('interaction_required');
    expect(res.headers.get('x-execution-id')).toBeNull();
    const errorLine = res.lines.find((l) => l.includes('not an interactive route'));
    expect(errorLine).toBeDefined();
    expect(errorLine).toContain(`but ${path} is not an interactive route`);
    expect(errorLine).toContain(`Use the interactive route ${instead} instead.`);
  });

  it('legacy routes leave nothing behind to poll', async () => {
    const res = await postStream(`${t.url}/generate/stream`, { input_message: 'x' });
    expect(res.text).not.toContain('/executions/');
  });

  it.each(['/v1/workflow', '/v1/chat'])('%s pauses with 202', async (path) => {
    const res = await postJson(`${t.url}${path}`, path === '/v1/chat' ? user('x') : { input_message: 'x' });
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('interaction_required');
    await new Executions(t.url).cancel(res.json.execution_id as string);
  });

  it('/v1/chat/completions without enable_interactive_extensions: a prompt fails, naming the interactive route', async () => {
    const res = await postJson(`${t.url}/v1/chat/completions`, user('x'));
    expect(res.status).toBe(422);
    const error = res.json.error as { message: string; type: string };
    expect(error.type).toBe('workflow_error');
    expect(error.message).toContain('/v1/chat/completions is not an interactive route');
    expect(error.message).toMatch(/Use the interactive route \/v1\/chat(\/stream)? instead\./);

    const stream = await postStream(`${t.url}/v1/chat/completions`, { ...user('x'), stream: true });
    expect(stream.text).not.toContain('interaction_required');
    const data = stream.events.filter((e) => e.data !== '[DONE]').map((e) => JSON.parse(e.data));
    const failure = data.find((d) => d.error) as { error: { message: string } };
    expect(failure.error.message).toContain('Use the interactive route /v1/chat/stream instead.');
    expect(stream.events[stream.events.length - 1].data).toBe('[DONE]');
  });
});

describe('HITL: /v1/chat/completions with enable_interactive_extensions: true', () => {
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    t = await startApp(
      NAME_YAML.replace(
        'workflow:',
        'general:\n  front_end:\n    enable_interactive_extensions: true\nworkflow:',
      ),
    );
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  it('non-streaming: 202, then the completed result is a chat.completion', async () => {
    const res = await postJson(`${t.url}/v1/chat/completions`, { model: 'gpt-x', ...user('yo') });
    expect(res.status).toBe(202);
    const pause = res.json as unknown as Pause;
    expect(pause).toMatchObject({
      status: 'interaction_required',
      status_url: `/executions/${pause.execution_id}`,
      response_url: `/executions/${pause.execution_id}/interactions/${pause.interaction_id}/response`,
      prompt: { input_type: 'text', text: 'Your name?' },
    });
    await ex.answer(pause.response_url, { type: 'text', text: 'Flo' });
    const done = await ex.ended(pause.execution_id);
    expect(done.result).toMatchObject({
      object: 'chat.completion',
      model: 'gpt-x',
      choices: [{ message: { role: 'assistant', content: 'Hello Flo (yo)' } }],
    });
  });

  it('streaming: event: interaction_required, then the answer resumes the stream', async () => {
    const stream = await openStream(`${t.url}/v1/chat/completions`, {
      body: { ...user('yo'), stream: true },
    });
    expect(stream.status).toBe(200);
    const event = await stream.nextEvent('interaction_required');
    expect(event).toMatchObject({ event_type: 'interaction_required', prompt: { input_type: 'text' } });
    expect(stream.headers['x-execution-id']).toBe(event.execution_id);
    await ex.answer(event.response_url as string, { type: 'text', text: 'Gus' });
    await stream.end();
    const chunks = stream.dataFrames().map((d) => d.json as { choices: { delta: { content?: string } }[] });
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('Hello Gus (yo)');
    expect(stream.frames[stream.frames.length - 1].data).toBe('[DONE]');
    // ids never repeat: an event's first frame carries its id, the rest of its frames (the stop chunk
    // and [DONE] after the last chunk) none, so a client resuming after it gets none of them again
    const ids = stream.frames.map((f) => f.id).filter((id) => id !== undefined);
    // the observability_trace preamble comes before every event, so it has no id of its own
    expect(stream.frames[0].fields.observability_trace).toBeDefined();
    expect(stream.frames[0].id).toBeUndefined();
    expect(stream.frames[1].id).toBe(1);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort((a, b) => a! - b!)).toEqual(ids);
    expect(stream.frames[stream.frames.length - 1].id).toBeUndefined();
  });
});
