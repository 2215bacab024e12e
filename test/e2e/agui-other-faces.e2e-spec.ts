import { expectValidEvent, interruptsOf, RecordingAgent, type AguiEvent } from '../utils/agui-client';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

describe('AG-UI: a paused AG-UI execution as the HTTP execution routes show it', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- step: { name: plan, kind: function }\n- prompt: { input_type: text, text: 'Name?', save_as: name }`,
        'Hi {{name}}',
      ),
    );
  });
  afterAll(() => t.close());

  it('polls as interaction_required; a re-attached stream replays it as AG-UI events up to the interrupt', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('go');
    const [ask] = interruptsOf(await agent.run());
    const { executionId } = (ask.metadata as { interlude: { executionId: string } }).interlude;
    const status = (await (await fetch(`${t.url}/executions/${executionId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(status).toMatchObject({ status: 'interaction_required', interaction_id: ask.id });

    const stream = await fetch(`${t.url}/executions/${executionId}/stream`);
    expect(stream.status).toBe(200);
    const events = (await stream.text())
      .split('\n\n')
      .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
      .filter((line): line is string => line !== undefined)
      .map((line) => JSON.parse(line.slice(6)) as AguiEvent);
    events.forEach(expectValidEvent);
    expect(events.map((e) => e.type)).toEqual([
      'RUN_STARTED',
      'STEP_STARTED',
      'STEP_FINISHED',
      'STATE_SNAPSHOT',
      'MESSAGES_SNAPSHOT',
      'RUN_FINISHED',
    ]);
    expect(events.at(-1)).toMatchObject({ outcome: { type: 'interrupt', interrupts: [{ id: ask.id }] } });

    const done = await agent.resume({ [ask.id]: 'Ada' });
    expect(done.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    const ended = (await (await fetch(`${t.url}/executions/${executionId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(ended).toMatchObject({ status: 'completed', result: { text: 'Hi Ada' } });
  });
});
