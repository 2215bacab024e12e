import { alreadyResolved, Executions, type Pause } from '../utils/hitl';
import { postJson } from '../utils/sse';
import { scriptedYaml, startApp, type TestApp } from '../utils/test-app';

describe('HITL polling: statuses, answers and errors', () => {
  let t: TestApp;
  let ex: Executions;
  // The sleep is the window in which a poll right after the first answer sees `running`: one request's
  // round trip must fit in it on a loaded machine (0.2 s did not).
  const yaml = scriptedYaml(
    `- prompt: { input_type: text, text: 'Name?', save_as: name, error: 'Gone now' }
- sleep: { seconds: 2 }
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

  // Answers to an unknown execution or interaction, and answers that do not fit their prompt (422):
  // src/interactions/interactions.controller.spec.ts (slim app).
  it('404 for an unknown execution (status, cancel)', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const status = await ex.status(unknown);
    expect(status.status).toBe(404);
    expect(status.json).toEqual({ detail: `Execution ${unknown} not found` });
    expect((await ex.cancel(unknown)).status).toBe(404);
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
