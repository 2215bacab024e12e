import { interruptsOf, RecordingAgent, textOf, types } from '../utils/agui-client';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const PROMPTS = `- prompt: { input_type: text, text: 'Your name?', placeholder: 'Ada', save_as: name }
- prompt: { input_type: binary_choice, text: 'Proceed?', options: [{ id: y, label: Yes, value: 'yes' }, { id: n, label: No, value: 'no' }], save_as: go }
- prompt: { input_type: radio, text: 'Colour?', options: [{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }], save_as: colour }
- prompt: { input_type: checkbox, text: 'Toppings?', options: [{ id: c, label: Cheese, value: cheese }, { id: o, label: Olives, value: olives }], save_as: toppings }
- prompt: { input_type: dropdown, text: 'Size?', options: [{ id: s, label: Small, value: small }, { id: l, label: Large, value: large }], save_as: size }
- prompt: { input_type: notification, text: 'Baking now' }`;

describe('AG-UI: every prompt type of the scripted workflow is an interrupt, resumed with its payload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(PROMPTS, '{{name}} {{go}} {{colour}} {{toppings}} {{size}}'));
  });
  afterAll(() => t.close());

  it('asks each in turn with its reason and responseSchema, and completes with the answers', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('order a pizza');

    const [text] = interruptsOf(await agent.run());
    expect(text).toMatchObject({
      reason: 'input_required',
      message: 'Your name?',
      responseSchema: { type: 'string', minLength: 1 },
      metadata: { nat: { input_type: 'text', placeholder: 'Ada' } },
    });
    expect(text.toolCallId).toBeUndefined();
    expect(text.expiresAt).toBeUndefined();

    const [binary] = interruptsOf(await agent.resume({ [text.id]: 'Ada' }));
    expect(binary).toMatchObject({
      reason: 'confirmation',
      message: 'Proceed?',
      responseSchema: {
        type: 'object',
        properties: { approved: { type: 'boolean' } },
        required: ['approved'],
      },
    });

    const [radio] = interruptsOf(await agent.resume({ [binary.id]: { approved: true } }));
    expect(radio).toMatchObject({
      reason: 'input_required',
      responseSchema: { type: 'string', enum: ['r', 'g'] },
      metadata: { nat: { input_type: 'radio', options: [{ id: 'r' }, { id: 'g' }] } },
    });

    const [checkbox] = interruptsOf(await agent.resume({ [radio.id]: 'g' }));
    expect(checkbox).toMatchObject({
      reason: 'input_required',
      responseSchema: { type: 'array', items: { enum: ['c', 'o'] } },
    });

    const [dropdown] = interruptsOf(await agent.resume({ [checkbox.id]: ['c', 'o'] }));
    expect(dropdown).toMatchObject({ responseSchema: { type: 'string', enum: ['s', 'l'] } });

    const last = await agent.resume({ [dropdown.id]: 'l' });
    // A notification is shown, never waited on.
    expect(last.find((e) => e.type === 'CUSTOM')).toMatchObject({
      name: 'interlude:notification',
      value: { input_type: 'notification', text: 'Baking now' },
    });
    expect(textOf(last)).toBe('Ada yes green cheese, olives large');
    expect(last.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
  });

  it('ends an interrupted run with STATE_SNAPSHOT (the input state) and MESSAGES_SNAPSHOT (the history)', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('hello');
    agent.agent.setState({ cart: ['pizza'] });
    const events = await agent.run();
    expect(types(events).slice(-3)).toEqual(['STATE_SNAPSHOT', 'MESSAGES_SNAPSHOT', 'RUN_FINISHED']);
    expect(events.at(-3)).toMatchObject({ snapshot: { cart: ['pizza'] } });
    expect(events.at(-2)).toMatchObject({ messages: [{ role: 'user', content: 'hello' }] });
    expect(agent.agent.state).toEqual({ cart: ['pizza'] });
  });

  it('a cancelled resume takes the prompt’s cancel path when it allows one', async () => {
    const c = await startApp(
      scriptedYaml(
        `- prompt: { input_type: text, text: 'Name?', allow_cancel: true, save_as: n }`,
        'Hi {{n}}',
      ).replace('workflow:', `workflow:\n  cancel_output: 'Maybe later'`),
    );
    try {
      const agent = new RecordingAgent(`${c.url}/v1/ag-ui`).say('hi');
      const [ask] = interruptsOf(await agent.run());
      const events = await agent.resume({ [ask.id]: 'cancel' });
      expect(textOf(events)).toBe('Maybe later');
      expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'success' } });
    } finally {
      await c.close();
    }
  });

  it('a cancelled resume of a prompt that cannot be declined cancels the run', async () => {
    const agent = new RecordingAgent(`${t.url}/v1/ag-ui`).say('hi');
    const [ask] = interruptsOf(await agent.run());
    const events = await agent.resume({ [ask.id]: 'cancel' });
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
  });
});
