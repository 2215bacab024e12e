import { RecordingAgent } from '../utils/agui-client';
import { probeRegistry } from '../utils/probe-function';
import { eventually, startApp, type TestApp } from '../utils/test-app';

describe('AG-UI: what the workflow sees, and a client that stops', () => {
  const probe = probeRegistry();
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('workflow:\n  _type: probe\n', probe.registry);
  });
  afterAll(() => t.close());

  it('state, forwardedProps and context reach the workflow context; the history reaches its input', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('first').say('second');
    agent.agent.setState({ cart: ['pizza'] });
    const running = agent.agent.runAgent({
      forwardedProps: { locale: 'fr' },
      context: [{ description: 'user tier', value: 'gold' }],
    });
    await eventually(() => expect(probe.runs).toHaveLength(1));
    const run = probe.runs[0];
    expect(run.ctx.request.extras).toEqual({
      agui: {
        state: { cart: ['pizza'] },
        forwardedProps: { locale: 'fr' },
        context: [{ description: 'user tier', value: 'gold' }],
        tools: [],
      },
    });
    expect(JSON.stringify(run.input)).toContain('second');
    // Stopping the run (the client aborts its request) cancels it server-side.
    await eventually(() => expect(run.chunks).toBeGreaterThan(0));
    agent.agent.abortRun();
    await running;
    await eventually(() => expect(run.ended).toBe('aborted'));
  });
});
