import { randomUUID } from 'node:crypto';
import { postRun, RecordingAgent, textOf } from '../utils/agui-client';
import { registryWith } from '../utils/test-function';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const ASKS = `- prompt: { input_type: text, text: 'Your name?', save_as: name }`;

/** A body of about `bytes` bytes: a large `state`, as a client with a big application state sends. */
function runOf(bytes: number): Record<string, unknown> {
  return {
    threadId: randomUUID(),
    messages: [{ id: 'u', role: 'user', content: 'hi' }],
    state: { blob: 'x'.repeat(bytes) },
  };
}

describe('AG-UI: a streaming route, under the streaming body limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(ASKS, 'Hello {{name}}'));
  });
  afterAll(() => t.close());

  it('a body over max_stream_body_bytes (1 MiB) gets 413 naming the setting; one under it runs', async () => {
    const tooLarge = await postRun(`${t.url}/v1/ag-ui`, runOf(1.5 * 1024 * 1024));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body).toContain('general.front_end.max_stream_body_bytes');
    const fits = await postRun(`${t.url}/v1/ag-ui`, runOf(512 * 1024));
    expect(fits.status).toBe(200);
    expect(fits.events[fits.events.length - 1]).toMatchObject({ outcome: { type: 'interrupt' } });
  });
});

describe('AG-UI: what a waiting run keeps of its input', () => {
  /** The `ctx.request.extras.agui` the workflow was handed, as it sees it while it waits and after. */
  const seen: { handed?: Record<string, unknown>; whileWaiting?: string; afterResume?: string } = {};
  let t: TestApp;
  beforeAll(async () => {
    const registry = registryWith('extras', async (_input, ctx) => {
      const handed = (ctx.request.extras as { agui: Record<string, unknown> }).agui;
      seen.handed = handed;
      const answer = await ctx.prompt({ input_type: 'text', text: 'Go on?' });
      seen.afterResume = JSON.stringify(handed);
      return answer.type === 'text' ? `go ${answer.text}` : 'stopped';
    });
    t = await startApp('workflow:\n  _type: extras\n', registry);
  });
  afterAll(() => t.close());

  it('holds no state, forwardedProps or context while it waits; the resume hands it the client’s current ones', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('hi');
    agent.agent.setState({ cart: 'x'.repeat(100_000) });
    await agent.run({
      forwardedProps: { big: 'y'.repeat(100_000) },
      context: [{ description: 'd', value: 'z' }],
    });
    expect(agent.pendingInterrupts).toHaveLength(1);
    await eventually(() => expect(seen.handed).toBeDefined());
    seen.whileWaiting = JSON.stringify(seen.handed);
    expect(seen.whileWaiting).toBe('{}');
    agent.agent.setState({ cart: 'after' });
    const done = await agent.run({
      forwardedProps: { locale: 'fr' },
      resume: [{ interruptId: agent.pendingInterrupts[0].id, status: 'resolved', payload: 'on' }],
    });
    expect(textOf(done)).toContain('go on');
    expect(JSON.parse(seen.afterResume!)).toEqual({
      state: { cart: 'after' },
      forwardedProps: { locale: 'fr' },
      context: [],
      tools: [],
    });
  });
});
