import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecutionService } from '../../src/executions/execution.service';
import { alreadyResolved, call, DEFAULT_PROMPT_ERROR, Executions, type Pause } from '../utils/hitl';
import { openStream } from '../utils/live-sse';
import { probeRegistry } from '../utils/probe-function';
import { postJson, postStream } from '../utils/sse';
import { configFrom, eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const user = (content: string) => ({ messages: [{ role: 'user', content }] });

/** One text prompt, then the output quoting the answer. */
const NAME_STEPS = `- prompt: { input_type: text, text: 'Your name?', placeholder: 'A name', save_as: name }`;
const NAME_YAML = scriptedYaml(NAME_STEPS, 'Hello {{name}} ({{input}})');

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

describe('HITL polling: statuses, answers and errors', () => {
  let t: TestApp;
  let ex: Executions;
  const yaml = scriptedYaml(
    `- prompt: { input_type: text, text: 'Name?', save_as: name, error: 'Gone now' }
- sleep: { seconds: 0.2 }
- prompt: { input_type: checkbox, text: 'Pick', options: [{ id: a, label: A, value: va }, { id: b, label: B, value: vb }], save_as: picks }
- prompt: { input_type: binary_choice, text: 'Really?', options: [{ id: y, label: Y, value: 'y' }, { id: n, label: N, value: 'n' }], save_as: sure }`,
    '{{name}}: {{picks}} {{sure}}',
  );
  beforeAll(async () => {
    t = await startApp(yaml);
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  async function start(input = 'x'): Promise<Pause> {
    const res = await postJson(`${t.url}/v1/workflow`, { input_message: input });
    expect(res.status).toBe(202);
    return res.json as unknown as Pause;
  }

  it('running while the workflow works between prompts, then the next prompt, then completed', async () => {
    const first = await start();
    expect(first.prompt).toEqual({
      input_type: 'text',
      text: 'Name?',
      placeholder: null,
      required: true,
      timeout: null,
      error: 'Gone now',
    });
    expect((await ex.answer(first.response_url, { type: 'text', text: 'Bo' })).status).toBe(204);
    expect((await ex.status(first.execution_id)).json).toEqual({
      execution_id: first.execution_id,
      status: 'running',
    });
    const second = await ex.nextPause(first.execution_id, first.interaction_id);
    expect(second.execution_id).toBe(first.execution_id);
    await ex.answer(second.response_url, { type: 'checkbox', selected_options: [{ id: 'b' }, { id: 'a' }] });
    const third = await ex.nextPause(first.execution_id, second.interaction_id);
    await ex.answer(third.response_url, { input_type: 'binary_choice', selected_option: { id: 'n' } });
    expect(await ex.ended(first.execution_id)).toEqual({
      execution_id: first.execution_id,
      status: 'completed',
      result: { value: 'Bo: vb, va n' },
    });
  });

  it("a checkbox answer in NAT's own shape (one selected_option) is a one-item selection", async () => {
    const first = await start();
    await ex.answer(first.response_url, { type: 'text', text: 'Di' });
    const second = await ex.nextPause(first.execution_id, first.interaction_id);
    const natShape = await ex.answer(second.response_url, {
      input_type: 'checkbox',
      selected_option: { id: 'b', label: 'B', value: 'vb' },
    });
    expect(natShape.status).toBe(204);
    const third = await ex.nextPause(first.execution_id, second.interaction_id);
    await ex.answer(third.response_url, { type: 'binary_choice', selected_option: { id: 'y' } });
    expect((await ex.ended(first.execution_id)).result).toEqual({ value: 'Di: vb y' });
  });

  it('404 for an unknown execution (status, answer, cancel) and an unknown interaction', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const status = await ex.status(unknown);
    expect(status.status).toBe(404);
    expect(status.json).toEqual({ detail: `Execution ${unknown} not found` });
    const answer = await ex.answer(`/executions/${unknown}/interactions/${unknown}/response`, {
      type: 'text',
      text: 'x',
    });
    expect(answer.status).toBe(404);
    expect((await ex.cancel(unknown)).status).toBe(404);

    const pause = await start();
    const wrong = await ex.answer(`/executions/${pause.execution_id}/interactions/${unknown}/response`, {
      type: 'text',
      text: 'x',
    });
    expect(wrong.status).toBe(404);
    expect(wrong.json.detail).toContain(unknown);
    // the real interaction is still waiting
    expect((await ex.status(pause.execution_id)).json.status).toBe('interaction_required');
    await ex.cancel(pause.execution_id);
  });

  it('a second (and third) answer to the same interaction is 400 "already been resolved"', async () => {
    const pause = await start();
    expect((await ex.answer(pause.response_url, { type: 'text', text: 'one' })).status).toBe(204);
    for (const response of [
      { type: 'text', text: 'two' },
      { type: 'text', text: 'three' },
    ]) {
      const again = await ex.answer(pause.response_url, response);
      expect(again.status).toBe(400);
      expect(again.json).toEqual(alreadyResolved(pause.interaction_id));
    }
    expect((await ex.cancel(pause.execution_id)).status).toBe(204);
  });

  it('only one of many concurrent answers to an interaction is accepted', async () => {
    const pause = await start();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => ex.answer(pause.response_url, { type: 'text', text: `n${i}` })),
    );
    expect(results.filter((r) => r.status === 204)).toHaveLength(1);
    expect(results.filter((r) => r.status === 400)).toHaveLength(9);
    expect((await ex.cancel(pause.execution_id)).status).toBe(204);
  });

  it.each([
    [
      'the wrong type',
      { type: 'radio', selected_option: { id: 'a' } },
      'expected a "text" response, got "radio"',
    ],
    ['no discriminator', { text: 'x' }, 'response needs a "type" (expected "text")'],
    ['an empty required text', { type: 'text', text: '  ' }, 'this prompt requires a non-empty text'],
    ['text missing', { type: 'text' }, 'a text response needs a "text" string'],
    ['a cancel the prompt does not allow', { type: 'cancel' }, 'this prompt cannot be cancelled'],
  ])('422 for %s, saying what was expected; the prompt stays open', async (_what, response, message) => {
    const pause = await start();
    const res = await ex.answer(pause.response_url, response);
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [{ type: 'value_error', loc: ['body', 'response'], msg: expect.any(String), input: response }],
    });
    expect((res.json.detail as { msg: string }[])[0].msg).toContain(message);
    expect((await ex.status(pause.execution_id)).json.interaction_id).toBe(pause.interaction_id);
    expect((await ex.answer(pause.response_url, { type: 'text', text: 'ok' })).status).toBe(204);
    await ex.cancel(pause.execution_id);
  });

  it('422 when a choice answer names an option that is not in the prompt, or a checkbox gets no list', async () => {
    const first = await start();
    await ex.answer(first.response_url, { type: 'text', text: 'Cy' });
    const pause = await ex.nextPause(first.execution_id, first.interaction_id);
    const notAnOption = await ex.answer(pause.response_url, {
      type: 'checkbox',
      selected_options: [{ id: 'a' }, { id: 'zzz', label: 'Z', value: 'z' }],
    });
    expect(notAnOption.status).toBe(422);
    expect((notAnOption.json.detail as { msg: string }[])[0].msg).toBe(
      `selected option "zzz" is not one of the prompt's options ("a", "b")`,
    );
    const notAList = await ex.answer(pause.response_url, { type: 'checkbox', selected_options: 'a' });
    expect(notAList.status).toBe(422);
    expect((notAList.json.detail as { msg: string }[])[0].msg).toContain('"selected_options": a list');
    const freeText = await ex.answer(pause.response_url, { type: 'text', text: 'both' });
    expect(freeText.status).toBe(422);
    expect((freeText.json.detail as { msg: string }[])[0].msg).toBe(
      'expected a "checkbox" response; this prompt does not accept free text',
    );
    const notAnObject = await call('POST', `${t.url}${pause.response_url}`, { response: 'yes' });
    expect(notAnObject.status).toBe(422);
    const noResponse = await call('POST', `${t.url}${pause.response_url}`, { answer: {} });
    expect(noResponse.status).toBe(422);
    expect(noResponse.json.detail).toEqual([expect.objectContaining({ loc: ['body', 'response'] })]);
    expect((await ex.answer(pause.response_url, { type: 'checkbox', selected_options: [] })).status).toBe(
      422,
    );
    // still open: a good answer goes through
    expect(
      (await ex.answer(pause.response_url, { type: 'checkbox', selected_options: [{ id: 'a' }] })).status,
    ).toBe(204);
    const last = await ex.nextPause(first.execution_id, pause.interaction_id);
    const third = await ex.answer(last.response_url, {
      type: 'binary_choice',
      selected_option: { id: 'maybe', label: 'Maybe', value: 'm' },
    });
    expect(third.status).toBe(422);
    expect((third.json.detail as { msg: string }[])[0].msg).toBe(
      `selected option "maybe" is not one of the prompt's options ("y", "n")`,
    );
    await ex.cancel(first.execution_id);
  });

  it('DELETE cancels a waiting execution: 204, failed "Execution cancelled", later answers 400, DELETE again 409', async () => {
    const pause = await start();
    const del = await ex.cancel(pause.execution_id);
    expect(del.status).toBe(204);
    expect((await ex.status(pause.execution_id)).json).toEqual({
      execution_id: pause.execution_id,
      status: 'failed',
      error: 'Execution cancelled',
    });
    for (let i = 0; i < 2; i++) {
      const late = await ex.answer(pause.response_url, { type: 'text', text: 'too late' });
      expect(late.status).toBe(400);
      expect(late.json).toEqual(alreadyResolved(pause.interaction_id));
    }
    const again = await ex.cancel(pause.execution_id);
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain('already ended');
  });

  it('DELETE on a completed execution is 409 and leaves it completed', async () => {
    const pause = await start();
    await ex.answer(pause.response_url, { type: 'text', text: 'Di' });
    const p2 = await ex.nextPause(pause.execution_id, pause.interaction_id);
    await ex.answer(p2.response_url, { type: 'checkbox', selected_options: [{ id: 'a' }] });
    const p3 = await ex.nextPause(pause.execution_id, p2.interaction_id);
    await ex.answer(p3.response_url, { type: 'binary_choice', selected_option: { id: 'y' } });
    expect((await ex.ended(pause.execution_id)).status).toBe('completed');
    const del = await ex.cancel(pause.execution_id);
    expect(del.status).toBe(409);
    expect((await ex.status(pause.execution_id)).json.status).toBe('completed');
    // answers to its (resolved) interactions stay 400 after the end
    const late = await ex.answer(p3.response_url, { type: 'binary_choice', selected_option: { id: 'n' } });
    expect(late.status).toBe(400);
    expect(late.json).toEqual(alreadyResolved(p3.interaction_id));
  });
});

describe('HITL polling: results, failures and non-pausing workflows', () => {
  it('a workflow that finishes without asking answers 200 with its normal body', async () => {
    const t = await startApp(scriptedYaml(`- stream: { text: 'a b' }`, 'plain {{input}}'));
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'run' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'plain run' });
      const chat = await postJson(`${t.url}/v1/chat`, user('run'));
      expect(chat.status).toBe(200);
      expect(chat.json.object).toBe('chat.completion');
    } finally {
      await t.close();
    }
  });

  it('notifications do not pause: a notification-only workflow answers 200', async () => {
    const t = await startApp(
      scriptedYaml(
        `- prompt: { input_type: notification, text: 'Working on {{input}}' }
- prompt: { input_type: notification, text: 'Still working' }`,
        'noted {{input}}',
      ),
    );
    try {
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'it' });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ value: 'noted it' });
      // a notification on a non-interactive route is fine too
      expect((await postJson(`${t.url}/generate`, { input_message: 'it' })).json).toEqual({
        value: 'noted it',
      });
    } finally {
      await t.close();
    }
  });

  it('/v1/chat: 202, and the completed result is a chat.completion', async () => {
    const t = await startApp(NAME_YAML);
    const ex = new Executions(t.url);
    try {
      const start = await postJson(`${t.url}/v1/chat`, { model: 'm1', ...user('hi') });
      expect(start.status).toBe(202);
      const pause = start.json as unknown as Pause;
      expect(pause).toMatchObject({
        status: 'interaction_required',
        status_url: `/executions/${pause.execution_id}`,
        prompt: { input_type: 'text', text: 'Your name?', placeholder: 'A name', required: true },
      });
      expect((await ex.answer(pause.response_url, { type: 'text', text: 'Eve' })).status).toBe(204);
      const done = await ex.ended(pause.execution_id);
      expect(done).toEqual({
        execution_id: pause.execution_id,
        status: 'completed',
        result: expect.any(Object),
      });
      expect(done.result).toMatchObject({
        object: 'chat.completion',
        model: 'm1',
        choices: [
          { index: 0, message: { role: 'assistant', content: 'Hello Eve (hi)' }, finish_reason: 'stop' },
        ],
      });
    } finally {
      await t.close();
    }
  });

  it('a workflow that fails after an answer: status failed with its error', async () => {
    const t = await startApp(
      scriptedYaml(
        `${NAME_STEPS}\n- fail: { message: 'no {{name}} allowed', error_type: ValueError }`,
        'unused',
      ),
    );
    const ex = new Executions(t.url);
    try {
      const start = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      const pause = start.json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Zed' });
      expect(await ex.ended(pause.execution_id)).toEqual({
        execution_id: pause.execution_id,
        status: 'failed',
        error: 'no Zed allowed',
      });
      expect((await ex.cancel(pause.execution_id)).status).toBe(409);
    } finally {
      await t.close();
    }
  });

  it('a binary_choice prompt needs exactly two options (config error)', () => {
    expect(() =>
      configFrom(
        scriptedYaml(
          `- prompt: { input_type: binary_choice, text: 'Pick', options: [{ id: a, label: A, value: a }, { id: b, label: B, value: b }, { id: c, label: C, value: c }] }`,
        ),
      ),
    ).toThrow(/exactly two options, not 3/);
    expect(() =>
      configFrom(
        scriptedYaml(`- prompt: { input_type: radio, text: 'Pick', options: [{ id: a, label: A }] }`),
      ),
    ).toThrow(/value/);
  });
});

describe('HITL polling: cancelling a running workflow', () => {
  it('DELETE aborts ctx.signal; status failed "Execution cancelled"; the stream ends with event: error', async () => {
    const { registry, runs } = probeRegistry();
    const t = await startApp('workflow:\n  _type: probe\n', registry);
    const ex = new Executions(t.url);
    try {
      const stream = await openStream(`${t.url}/v1/workflow/stream`, { body: { input_message: 'go' } });
      const id = stream.headers['x-execution-id'] as string;
      expect(id).toMatch(/^[0-9a-f-]{36}$/);
      await stream.next((f) => f.data !== undefined);
      expect((await ex.status(id)).json).toEqual({ execution_id: id, status: 'running' });
      const del = await ex.cancel(id);
      expect(del.status).toBe(204);
      await stream.end();
      const error = stream.frames.find((f) => f.event === 'error');
      expect(JSON.parse(error!.data!)).toEqual({
        code: 'workflow_error',
        message: 'Execution cancelled: cancelled by client',
        details: 'ExecutionCancelled',
      });
      expect(stream.frames[stream.frames.length - 1]).toBe(error);
      await eventually(() => expect(runs[0].ended).toBe('aborted'));
      expect(runs[0].ctx.signal.aborted).toBe(true);
      expect(runs[0].abortReason).toMatchObject({
        name: 'ExecutionCancelled',
        reason: 'cancelled by client',
      });
      expect((await ex.status(id)).json).toEqual({
        execution_id: id,
        status: 'failed',
        error: 'Execution cancelled',
      });
      expect((await ex.cancel(id)).status).toBe(409);
    } finally {
      await t.close();
    }
  });
});

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

describe('HITL lifecycle: prompt timeouts', () => {
  it('a prompt with timeout T fails the wait after T + 5 s; the execution fails; a late answer is 400', async () => {
    const t = await startApp(
      scriptedYaml(`- prompt: { input_type: text, text: 'Quick!', timeout: 0.1, save_as: a }`, '{{a}}'),
    );
    const ex = new Executions(t.url);
    try {
      const started = Date.now();
      const res = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      expect(res.status).toBe(202);
      const pause = res.json as unknown as Pause;
      expect(pause.prompt.timeout).toBe(0.1);
      // well past T but within the grace: still waiting (NAT waits T + 5 s)
      await new Promise((r) => setTimeout(r, 1000));
      expect((await ex.status(pause.execution_id)).json.status).toBe('interaction_required');
      const ended = await ex.ended(pause.execution_id, 8000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(5000);
      expect(ended).toEqual({
        execution_id: pause.execution_id,
        status: 'failed',
        error: 'HITL prompt timed out after 0.1s waiting for human response',
      });
      const late = await ex.answer(pause.response_url, { type: 'text', text: 'now?' });
      expect(late.status).toBe(400);
      expect(late.json).toEqual(alreadyResolved(pause.interaction_id));
    } finally {
      await t.close();
    }
  }, 15_000);
});

describe('HITL lifecycle: finished executions are kept for execution_ttl_seconds', () => {
  it('a terminal execution stays readable, then is removed (404)', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  execution_ttl_seconds: 1\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const done = await postJson(`${t.url}/v1/workflow`, { input_message: 'x' });
      const pause = done.json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Hal' });
      const cancelled = (await postJson(`${t.url}/v1/workflow`, { input_message: 'y' }))
        .json as unknown as Pause;
      await ex.cancel(cancelled.execution_id);
      const waiting = (await postJson(`${t.url}/v1/workflow`, { input_message: 'z' }))
        .json as unknown as Pause;
      expect((await ex.ended(pause.execution_id)).status).toBe('completed');

      const service = t.app.get(ExecutionService);
      await service.sweep(Date.now());
      // not yet expired
      expect((await ex.status(pause.execution_id)).status).toBe(200);
      expect((await ex.status(cancelled.execution_id)).status).toBe(200);

      await service.sweep(Date.now() + 1500);
      for (const id of [pause.execution_id, cancelled.execution_id]) {
        const gone = await ex.status(id);
        expect(gone.status).toBe(404);
        expect(gone.json).toEqual({ detail: `Execution ${id} not found` });
        expect((await ex.cancel(id)).status).toBe(404);
        expect((await call('GET', `${t.url}/executions/${id}/stream`)).status).toBe(404);
      }
      const late = await ex.answer(pause.response_url, { type: 'text', text: 'x' });
      expect(late.status).toBe(404);
      // an execution still waiting is not swept, however old
      expect((await ex.status(waiting.execution_id)).json.status).toBe('interaction_required');
      await ex.answer(waiting.response_url, { type: 'text', text: 'Ivy' });
      expect((await ex.ended(waiting.execution_id)).result).toEqual({ value: 'Hello Ivy (z)' });
    } finally {
      await t.close();
    }
  });

  it('the background sweeper (every min(ttl, 30 s)) removes them without help', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  execution_ttl_seconds: 1\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const pause = (await postJson(`${t.url}/v1/workflow`, { input_message: 'x' })).json as unknown as Pause;
      await ex.answer(pause.response_url, { type: 'text', text: 'Jo' });
      expect((await ex.ended(pause.execution_id)).status).toBe('completed');
      await eventually(async () => expect((await ex.status(pause.execution_id)).status).toBe(404), 4000, 100);
    } finally {
      await t.close();
    }
  }, 10_000);
});

describe('HITL limits: max_waiting_executions', () => {
  it('429 with Retry-After and a message once that many executions are waiting', async () => {
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  max_waiting_executions: 2\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const first = (await postJson(`${t.url}/v1/workflow`, { input_message: '1' })).json as unknown as Pause;
      const second = await postJson(`${t.url}/v1/chat`, user('2'));
      expect(second.status).toBe(202);
      for (const path of ['/v1/workflow', '/v1/chat', '/v1/workflow/stream']) {
        const full = await postJson(
          `${t.url}${path}`,
          path === '/v1/chat' ? user('3') : { input_message: '3' },
        );
        expect(full.status).toBe(429);
        expect(full.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(full.json).toEqual({
          detail: 'Too many executions are waiting for a person (2); try again later.',
        });
      }
      // non-interactive routes are not limited
      expect((await postJson(`${t.url}/generate`, { input_message: '3' })).status).toBe(422);
      // answering one frees a place
      await ex.answer(first.response_url, { type: 'text', text: 'Kai' });
      await ex.ended(first.execution_id);
      const third = await postJson(`${t.url}/v1/workflow`, { input_message: '3' });
      expect(third.status).toBe(202);
      // cancelling one frees a place too
      expect((await postJson(`${t.url}/v1/workflow`, { input_message: '4' })).status).toBe(429);
      await ex.cancel(third.json.execution_id as string);
      const fourth = await postJson(`${t.url}/v1/workflow`, { input_message: '4' });
      expect(fourth.status).toBe(202);
      await ex.cancel(fourth.json.execution_id as string);
      await ex.cancel(second.json.execution_id as string);
    } finally {
      await t.close();
    }
  });
});

describe('HITL concurrency', () => {
  it('200 concurrent executions, each waiting on a prompt, answered in random order: no cross-talk', async () => {
    // One anonymous client from one address: above the default per-address allowance on purpose.
    const t = await startApp(
      NAME_YAML.replace('workflow:', 'general:\n  max_waiting_executions_per_address: 200\nworkflow:'),
    );
    const ex = new Executions(t.url);
    try {
      const n = 200;
      const inputs = Array.from(
        { length: n },
        (_, i) => `input-${i}-${Math.random().toString(36).slice(2, 8)}`,
      );
      const starts = await Promise.all(
        inputs.map((input) => postJson(`${t.url}/v1/workflow`, { input_message: input })),
      );
      expect(starts.every((s) => s.status === 202)).toBe(true);
      const pauses = starts.map((s) => s.json as unknown as Pause);
      expect(new Set(pauses.map((p) => p.execution_id)).size).toBe(n);
      expect(new Set(pauses.map((p) => p.interaction_id)).size).toBe(n);

      const order = pauses.map((p, i) => ({ p, i, key: Math.random() })).sort((a, b) => a.key - b.key);
      const answers = await Promise.all(
        order.map(({ p, i }) => ex.answer(p.response_url, { type: 'text', text: `answer-for-${inputs[i]}` })),
      );
      expect(answers.every((a) => a.status === 204)).toBe(true);

      const results = await Promise.all(pauses.map((p) => ex.ended(p.execution_id, 10_000)));
      results.forEach((r, i) => {
        expect(r).toEqual({
          execution_id: pauses[i].execution_id,
          status: 'completed',
          result: { value: `Hello answer-for-${inputs[i]} (${inputs[i]})` },
        });
      });
    } finally {
      await t.close();
    }
  }, 30_000);
});
