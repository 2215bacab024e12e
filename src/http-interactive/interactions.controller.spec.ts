import { randomUUID } from 'node:crypto';
import { ExecutionService } from '../executions/engine/execution.service';
import type { MemoryExecutionStore } from '../executions/store/memory-execution.store';
import type { InteractionService } from '../interactions/interaction.service';
import { LazyAbort } from '../runtime/lazy-abort';
import type { Prompt, PromptAnswer } from '../runtime/prompts';
import { anEngine, anExecutionRecord, aPrompt, AskingExecution } from '../../test/utils/builders';
import { call, Executions } from '../../test/utils/hitl';
import { slimApp, type SlimApp } from '../../test/utils/slim-app';
import { InteractionsController } from './interactions.controller';

interface Waiting {
  execution_id: string;
  interaction_id: string;
  response_url: string;
  /** What the waiting workflow gets once an answer is accepted. */
  answered: Promise<PromptAnswer>;
  cancel: LazyAbort;
}

/**
 * The answer route with the real ExecutionService and InteractionService over memory adapters; the
 * prompts are asked the way the engine's sink asks them, with no workflow running.
 */
describe('POST /executions/{id}/interactions/{iid}/response', () => {
  let t: SlimApp;
  let ex: Executions;
  let store: MemoryExecutionStore;
  let interactions: InteractionService;
  beforeAll(async () => {
    const engine = await anEngine();
    ({ store, interactions } = engine);
    t = await slimApp({
      controllers: [InteractionsController],
      providers: [{ provide: ExecutionService, useValue: engine.executions }],
    });
    ex = new Executions(t.url);
  });
  afterAll(() => t.close());

  /** An anonymous execution waiting on `prompt`, as a workflow's ctx.prompt leaves it. */
  async function waitingOn(prompt: Prompt = aPrompt('text')): Promise<Waiting> {
    const record = anExecutionRecord();
    await store.create(record);
    const execution = new AskingExecution(record.id, store);
    const cancel = new LazyAbort();
    const interactionId = randomUUID();
    const answered = interactions.ask(execution, prompt, cancel, interactionId);
    answered.catch(() => undefined);
    await execution.prompted;
    return {
      execution_id: record.id,
      interaction_id: interactionId,
      response_url: `/executions/${record.id}/interactions/${interactionId}/response`,
      answered,
      cancel,
    };
  }

  async function openInteraction(id: string): Promise<string | undefined> {
    return (await store.get(id))?.openInteractionId;
  }

  it('204 for a good answer, and the waiting workflow gets it normalized', async () => {
    const pause = await waitingOn();
    expect((await ex.answer(pause.response_url, { input_type: 'text', text: 'Ada' })).status).toBe(204);
    expect(await pause.answered).toEqual({ type: 'text', text: 'Ada' });
  });

  it('404 for an unknown execution and an unknown interaction', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const answer = await ex.answer(`/executions/${unknown}/interactions/${unknown}/response`, {
      type: 'text',
      text: 'x',
    });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ detail: `Execution ${unknown} not found` });

    const pause = await waitingOn();
    const wrong = await ex.answer(`/executions/${pause.execution_id}/interactions/${unknown}/response`, {
      type: 'text',
      text: 'x',
    });
    expect(wrong.status).toBe(404);
    expect(wrong.json.detail).toContain(unknown);
    // the real interaction is still waiting
    expect(await openInteraction(pause.execution_id)).toBe(pause.interaction_id);
    pause.cancel.abort(new Error('done'));
  });

  it('404, not 403, for an execution another user owns', async () => {
    const record = anExecutionRecord({ ownerId: 'someone-else' });
    await store.create(record);
    const execution = new AskingExecution(record.id, store);
    const interactionId = randomUUID();
    const cancel = new LazyAbort();
    interactions.ask(execution, aPrompt('text'), cancel, interactionId).catch(() => undefined);
    await execution.prompted;
    const res = await ex.answer(`/executions/${record.id}/interactions/${interactionId}/response`, {
      type: 'text',
      text: 'mine now',
    });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ detail: `Execution ${record.id} not found` });
    expect(await openInteraction(record.id)).toBe(interactionId);
    cancel.abort(new Error('done'));
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
    const pause = await waitingOn();
    const res = await ex.answer(pause.response_url, response);
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      detail: [{ type: 'value_error', loc: ['body', 'response'], msg: expect.any(String), input: response }],
    });
    expect((res.json.detail as { msg: string }[])[0].msg).toContain(message);
    expect(await openInteraction(pause.execution_id)).toBe(pause.interaction_id);
    expect((await ex.answer(pause.response_url, { type: 'text', text: 'ok' })).status).toBe(204);
    expect(await pause.answered).toEqual({ type: 'text', text: 'ok' });
  });

  it('422 when a choice answer names an option that is not in the prompt, or a checkbox gets no list', async () => {
    const pause = await waitingOn(aPrompt('checkbox', { options: aPrompt('checkbox').options!.slice(0, 2) }));
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
    expect(await pause.answered).toMatchObject({ type: 'checkbox', selected_options: [{ id: 'a' }] });

    const last = await waitingOn(aPrompt('binary_choice'));
    const third = await ex.answer(last.response_url, {
      type: 'binary_choice',
      selected_option: { id: 'maybe', label: 'Maybe', value: 'm' },
    });
    expect(third.status).toBe(422);
    expect((third.json.detail as { msg: string }[])[0].msg).toBe(
      `selected option "maybe" is not one of the prompt's options ("y", "n")`,
    );
    last.cancel.abort(new Error('done'));
  });

  it('no body is 422 missing and answers nothing', async () => {
    const pause = await waitingOn();
    const res = await call('POST', `${t.url}${pause.response_url}`, undefined);
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([{ type: 'missing', loc: ['body'], msg: 'Field required', input: null }]);
    expect(await openInteraction(pause.execution_id)).toBe(pause.interaction_id);
    pause.cancel.abort(new Error('done'));
  });

  it('GET on the answer route is 405 with Allow: POST', async () => {
    const pause = await waitingOn();
    const res = await call('GET', `${t.url}${pause.response_url}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    pause.cancel.abort(new Error('done'));
  });
});
