import type { Client } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import {
  a2aClient,
  aDataPart,
  aSend,
  asTask,
  aUserMessage,
  collect,
  datas,
  labelOf,
  stateOf,
  texts,
} from '../utils/a2a-client';
import { call } from '../utils/hitl';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const PROMPTS = `- prompt: { input_type: notification, text: 'Starting' }
- prompt: { input_type: text, text: 'Your name?', placeholder: 'Ada', save_as: name }
- prompt: { input_type: binary_choice, text: 'Proceed?', options: [{ id: y, label: Yes, value: 'yes' }, { id: n, label: No, value: 'no' }], save_as: go }
- prompt: { input_type: radio, text: 'Colour?', options: [{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }], save_as: colour }
- prompt: { input_type: checkbox, text: 'Toppings?', options: [{ id: c, label: Cheese, value: cheese }, { id: o, label: Olives, value: olives }], save_as: toppings }`;

/** The prompt a task waits on: its status text, and the NAT prompt in the data part. */
function promptOf(task: Task): { text: string; prompt: Record<string, unknown>; responseUrl: string } {
  expect(stateOf(task)).toBe('TASK_STATE_INPUT_REQUIRED');
  const message = task.status!.message!;
  const interlude = (message.metadata as { interlude: { response_url: string } }).interlude;
  return {
    text: texts(message.parts).join(''),
    prompt: datas(message.parts)[0] as Record<string, unknown>,
    responseUrl: interlude.response_url,
  };
}

describe('A2A: a person’s prompt makes the task input-required; the next message answers it', () => {
  let t: TestApp;
  let client: Client;
  beforeAll(async () => {
    t = await startApp(scriptedYaml(PROMPTS, '{{name}} {{go}} {{colour}} {{toppings}}'));
    client = await a2aClient(t.url);
  });
  afterAll(() => t.close());

  const answer = async (task: Task, content: Parameters<typeof aUserMessage>[0]) =>
    asTask(await client.sendMessage(aSend(aUserMessage(content, task))));

  it('text, binary, radio and checkbox prompts, answered by text and by data parts, on the same task', async () => {
    let task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    const first = promptOf(task);
    expect(first.text).toBe('Your name?');
    expect(first.prompt).toMatchObject({ input_type: 'text', placeholder: 'Ada', timeout: null });

    task = await answer(task, 'Ada');
    expect(promptOf(task).prompt).toMatchObject({ input_type: 'binary_choice', text: 'Proceed?' });
    task = await answer(task, [aDataPart({ approved: true })]);
    expect(promptOf(task).prompt).toMatchObject({ input_type: 'radio' });
    // A choice by its label, as text.
    task = await answer(task, 'Green');
    expect(promptOf(task).prompt).toMatchObject({ input_type: 'checkbox' });
    task = await answer(task, [aDataPart({ selected_option_ids: ['c', 'o'] })]);

    expect(stateOf(task)).toBe('TASK_STATE_COMPLETED');
    expect(texts(task.artifacts[0].parts).join('')).toBe('Ada yes green cheese, olives');
    // The history tells the exchange: the first message, then each question and its answer.
    const history = (await client.getTask({ tenant: '', id: task.id })).history.map((m) => texts(m.parts)[0]);
    expect(history).toEqual([
      'start',
      'Starting',
      'Your name?',
      'Ada',
      'Proceed?',
      'Yes',
      'Colour?',
      'Green',
      'Toppings?',
      'Cheese, Olives',
    ]);
  });

  it('a radio prompt takes {selected_option_id}; a streamed answer goes on to the next question', async () => {
    let task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    task = await answer(task, 'Grace');
    task = await answer(task, [aDataPart({ approved: false })]);
    const updates = await collect(
      client.sendMessageStream(aSend(aUserMessage([aDataPart({ selected_option_id: 'r' })], task))),
    );
    expect(updates.map(labelOf)).toEqual(['task:INPUT_REQUIRED', 'status:WORKING', 'status:INPUT_REQUIRED']);
    const latest = await client.getTask({ tenant: '', id: task.id });
    expect(promptOf(latest).text).toBe('Toppings?');
  });

  it('the prompt stays answerable on the HTTP face, and the task sees it answered', async () => {
    const task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    const { responseUrl } = promptOf(task);
    const answered = await call('POST', `${t.url}${responseUrl}`, {
      response: { type: 'text', text: 'Hopper' },
    });
    expect(answered.status).toBe(204);
    const next = await eventually(async () => {
      const current = await client.getTask({ tenant: '', id: task.id });
      expect(promptOf(current).text).toBe('Proceed?');
      return current;
    });
    expect(next.history.map((m) => texts(m.parts)[0])).toContain('Hopper');
  });

  it('an answer that fits no option is refused as invalid params and the task still waits', async () => {
    let task = asTask(await client.sendMessage(aSend(aUserMessage('start'))));
    task = await answer(task, 'Ada');
    task = await answer(task, 'Yes');
    await expect(answer(task, 'Purple')).rejects.toThrow(/not one of the options/);
    expect(promptOf(await client.getTask({ tenant: '', id: task.id })).text).toBe('Colour?');
  });
});
