import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { alreadyResolved, DEFAULT_PROMPT_ERROR, Executions, type Pause } from '../utils/hitl';
import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const DEMO_YAML = readFileSync(join(__dirname, '../../config/scripted-hitl.yml'), 'utf8');

const OPTIONS = {
  yesNo: [
    { id: 'yes', label: 'Yes', value: 'yes' },
    { id: 'no', label: 'No', value: 'no' },
  ],
  channels: [
    { id: 'email', label: 'Email', value: 'email', description: 'Receive it by email' },
    { id: 'sms', label: 'SMS', value: 'sms', description: 'Receive a link by SMS' },
    { id: 'push', label: 'Push Notification', value: 'push', description: 'Receive a push notification' },
  ],
  sections: [
    { id: 'sales', label: 'Sales', value: 'sales' },
    { id: 'costs', label: 'Costs', value: 'costs' },
    { id: 'hiring', label: 'Hiring', value: 'hiring' },
  ],
  formats: [
    { id: 'pdf', label: 'PDF', value: 'pdf', description: 'Portable document' },
    { id: 'xlsx', label: 'Excel', value: 'xlsx', description: 'Spreadsheet' },
  ],
};

/** Starts the demo workflow on /v1/workflow and answers its prompts up to (not including) `upTo`. */
async function demoUpTo(t: TestApp, ex: Executions, upTo: 'dropdown' | 'end'): Promise<Pause> {
  const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'sales' });
  expect(start.status).toBe(202);
  let pause = start.json as unknown as Pause;
  const answers = [
    { type: 'text', text: 'the board' },
    { type: 'binary_choice', selected_option: OPTIONS.yesNo[1] },
    { type: 'radio', selected_option: OPTIONS.channels[1] },
    { type: 'checkbox', selected_options: [OPTIONS.sections[0], OPTIONS.sections[2]] },
    { type: 'dropdown', selected_option: OPTIONS.formats[1] },
  ];
  for (const response of upTo === 'end' ? answers : answers.slice(0, -1)) {
    expect((await ex.answer(pause.response_url, response)).status).toBe(204);
    if (response.type === 'dropdown') break;
    pause = await ex.nextPause(pause.execution_id, pause.interaction_id);
  }
  return pause;
}

describe('HITL polling: the scripted demo (config/scripted-hitl.yml)', () => {
  let t: TestApp;
  let ex: Executions;
  beforeAll(async () => {
    t = await startApp(DEMO_YAML);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  it('asks every prompt type in turn (wire shape of each), then quotes every answer in its output', async () => {
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'sales' });
    // the notification before the first question does not pause: the 202 is for the text prompt
    expect(start.status).toBe(202);
    const id = start.json.execution_id as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const first = start.json.interaction_id as string;
    expect(start.json).toEqual({
      execution_id: id,
      status_url: `/executions/${id}`,
      status: 'interaction_required',
      interaction_id: first,
      prompt: {
        input_type: 'text',
        text: 'Who is the report for?',
        placeholder: 'A name or a team',
        required: true,
        timeout: null,
        error: DEFAULT_PROMPT_ERROR,
      },
      response_url: `/executions/${id}/interactions/${first}/response`,
    });
    // the status poll says the same
    const polled = await ex.status(id);
    expect(polled.status).toBe(200);
    expect(polled.json).toEqual({
      execution_id: id,
      status: 'interaction_required',
      interaction_id: first,
      prompt: start.json.prompt,
      response_url: start.json.response_url,
    });

    const steps: { prompt: Record<string, unknown>; response: Record<string, unknown> }[] = [
      { prompt: {}, response: { type: 'text', text: 'the board' } },
      {
        prompt: {
          input_type: 'binary_choice',
          text: 'Include Q4 projections?',
          options: OPTIONS.yesNo,
          required: true,
          timeout: null,
          error: DEFAULT_PROMPT_ERROR,
        },
        // NAT's docs use input_type as the discriminator; both are accepted
        response: { input_type: 'binary_choice', selected_option: OPTIONS.yesNo[1] },
      },
      {
        prompt: {
          input_type: 'radio',
          text: 'How should I send it?',
          options: OPTIONS.channels,
          required: true,
          timeout: null,
          error: DEFAULT_PROMPT_ERROR,
          allow_free_text: true,
        },
        response: { type: 'radio', selected_option: OPTIONS.channels[1] },
      },
      {
        prompt: {
          input_type: 'checkbox',
          text: 'Which sections?',
          options: OPTIONS.sections,
          required: true,
          timeout: null,
          error: DEFAULT_PROMPT_ERROR,
        },
        response: { input_type: 'checkbox', selected_options: [OPTIONS.sections[0], OPTIONS.sections[2]] },
      },
      {
        prompt: {
          input_type: 'dropdown',
          text: 'Which format?',
          options: OPTIONS.formats,
          required: true,
          timeout: 300,
          error: DEFAULT_PROMPT_ERROR,
          allow_cancel: true,
        },
        response: { type: 'dropdown', selected_option: OPTIONS.formats[1] },
      },
    ];
    let pause = start.json as unknown as Pause;
    const seen = new Set([pause.interaction_id]);
    for (const [i, step] of steps.entries()) {
      if (i > 0) {
        pause = await ex.nextPause(id, pause.interaction_id);
        expect(pause.prompt).toEqual(step.prompt);
        expect(pause.response_url).toBe(`/executions/${id}/interactions/${pause.interaction_id}/response`);
        expect(seen.has(pause.interaction_id)).toBe(false);
        seen.add(pause.interaction_id);
      }
      const res = await ex.answer(pause.response_url, step.response);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
    }
    const done = await ex.ended(id);
    expect(done).toEqual({
      execution_id: id,
      status: 'completed',
      result: {
        value: 'Report on "sales" for the board: sections Sales, Hiring, Q4 no, sent by SMS as Excel.',
      },
    });
    // every one of those interactions is now resolved
    for (const iid of seen) {
      const again = await ex.answer(`/executions/${id}/interactions/${iid}/response`, {
        type: 'text',
        text: 'x',
      });
      expect(again.status).toBe(400);
      expect(again.json).toEqual(alreadyResolved(iid));
    }
  });

  it('allow_cancel: {"type":"cancel"} ends the workflow with its cancel_output', async () => {
    const pause = await demoUpTo(t, ex, 'dropdown');
    expect(pause.prompt.input_type).toBe('dropdown');
    expect((await ex.answer(pause.response_url, { type: 'cancel' })).status).toBe(204);
    expect(await ex.ended(pause.execution_id)).toEqual({
      execution_id: pause.execution_id,
      status: 'completed',
      result: { value: 'Report on "sales" cancelled.' },
    });
  });

  it('allow_free_text: a radio prompt takes {"type":"text"} instead of an option', async () => {
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'q1' });
    let pause = start.json as unknown as Pause;
    await ex.answer(pause.response_url, { type: 'text', text: 'ops' });
    pause = await ex.nextPause(pause.execution_id, pause.interaction_id);
    await ex.answer(pause.response_url, { type: 'binary_choice', selected_option: OPTIONS.yesNo[0] });
    pause = await ex.nextPause(pause.execution_id, pause.interaction_id);
    expect(pause.prompt.input_type).toBe('radio');
    expect((await ex.answer(pause.response_url, { type: 'text', text: 'carrier pigeon' })).status).toBe(204);
    pause = await ex.nextPause(pause.execution_id, pause.interaction_id);
    await ex.answer(pause.response_url, { type: 'checkbox', selected_option: [OPTIONS.sections[1]] });
    pause = await ex.nextPause(pause.execution_id, pause.interaction_id);
    await ex.answer(pause.response_url, { type: 'dropdown', selected_option: OPTIONS.formats[0] });
    expect((await ex.ended(pause.execution_id)).result).toEqual({
      value: 'Report on "q1" for ops: sections Costs, Q4 yes, sent by carrier pigeon as PDF.',
    });
  });
});

describe('HITL polling: answers quoted by the output template', () => {
  let t: TestApp;
  let ex: Executions;
  const yaml = scriptedYaml(
    `- prompt: { input_type: text, text: 'Name?', save_as: name }
- prompt: { input_type: radio, text: 'Colour for {{name}}?', options: [{ id: r, label: Red, value: red }, { id: g, label: Green, value: green }], allow_free_text: true, save_as: colour }
- prompt: { input_type: checkbox, text: 'Toppings?', options: [{ id: ch, label: Cheese, value: cheese }, { id: ol, label: Olives, value: olives }, { id: ba, label: Basil, value: basil }], save_as: top }
- prompt: { input_type: dropdown, text: 'Size?', options: [{ id: s, label: Small, value: small }, { id: l, label: Large, value: large }], save_as: size }
- prompt: { input_type: binary_choice, text: 'Sure?', options: [{ id: y, label: Sure, value: 'yes' }, { id: n, label: Nope, value: 'no' }], save_as: ok }`,
    'name={{name}} colour={{colour}}/{{colour.label}}/{{colour.id}} top={{top}}/{{top.label}}/{{top.id}} size={{size}}/{{size.label}}/{{size.id}} ok={{ok}}/{{ok.label}}',
  );
  beforeAll(async () => {
    t = await startApp(yaml);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  it('several prompts answered one after another; {{x}}, {{x.label}}, {{x.id}} quote each answer', async () => {
    const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'pizza' });
    expect(start.status).toBe(202);
    const id = start.json.execution_id as string;
    let pause = start.json as unknown as Pause;
    const answers: unknown[] = [
      { type: 'text', text: 'Ada' },
      // a choice answer may carry its own text beside the option (allow_free_text)
      { type: 'radio', selected_option: { id: 'g', label: 'Green', value: 'green' }, text: 'lime green' },
      // checkbox: selected_option as a list is accepted too
      {
        type: 'checkbox',
        selected_option: [
          { id: 'ch', label: 'Cheese', value: 'cheese' },
          { id: 'ba', label: 'Basil', value: 'basil' },
        ],
      },
      { input_type: 'dropdown', selected_option: { id: 'l', label: 'Large', value: 'large' } },
      { type: 'binary_choice', selected_option: { id: 'y', label: 'Sure', value: 'yes' } },
    ];
    for (const [i, response] of answers.entries()) {
      if (i > 0) pause = await ex.nextPause(id, pause.interaction_id);
      if (i === 1) expect(pause.prompt.text).toBe('Colour for Ada?');
      expect((await ex.answer(pause.response_url, response)).status).toBe(204);
    }
    expect((await ex.ended(id)).result).toEqual({
      value:
        'name=Ada colour=lime green/Green/g top=cheese, basil/Cheese, Basil/ch, ba size=large/Large/l ok=yes/Sure',
    });
  });
});
