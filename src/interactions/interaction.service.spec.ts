import { AppError, ErrorCode } from '../core/errors/app-error';
import type { ExecutionService } from '../executions/engine/execution.service';
import type { MemoryExecutionStore } from '../executions/store/memory-execution.store';
import { LazyAbort } from '../runtime/lazy-abort';
import { PromptTimeoutError, type Prompt, type PromptAnswer } from '../runtime/prompts';
import {
  anEngine,
  anExecutionRecord,
  anIdentity,
  anOpenInteraction,
  aPrompt,
  AskingExecution,
} from '../../test/utils/builders';
import { InProcessInteractionBroker } from './interaction.broker';
import type { InteractionService } from './interaction.service';
import type { InteractionRecord } from './interaction-record';

/** A broker that holds accepted answers until `release()`: the gap in which a timeout can still fire. */
class GatedBroker extends InProcessInteractionBroker {
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  override async deliver(executionId: string, interactionId: string, answer: PromptAnswer): Promise<void> {
    await this.gate;
    return super.deliver(executionId, interactionId, answer);
  }

  release(): void {
    this.open();
  }
}

/** The error a promise rejects with (fails the test when it fulfils). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

/** The error a function throws (fails the test when it returns). */
function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

function expectAppError(err: unknown, code: ErrorCode, message?: string): void {
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  if (message !== undefined) expect((err as AppError).message).toBe(message);
}

const NOBODY = anIdentity(null);

/**
 * The workflow's side of the rendezvous (ask, as the engine's sink calls it); answers come the way a
 * person's do, through ExecutionService.respond, with the real services over memory adapters.
 */
describe('InteractionService', () => {
  let store: MemoryExecutionStore;
  let broker: InProcessInteractionBroker;
  let service: InteractionService;
  let executions: ExecutionService;

  async function wire(next: InProcessInteractionBroker = new InProcessInteractionBroker()): Promise<void> {
    broker = next;
    ({ store, interactions: service, executions } = await anEngine(undefined, broker));
  }

  beforeEach(() => wire());
  afterEach(() => jest.useRealTimers());

  /** An anonymous execution waiting on `prompt` (interaction i1). */
  async function asking(prompt: Prompt = aPrompt('text'), interactionId = 'i1') {
    const record = anExecutionRecord();
    await store.create(record);
    const execution = new AskingExecution(record.id, store);
    const cancel = new LazyAbort();
    const answered = service.ask(execution, prompt, cancel, interactionId);
    answered.catch(() => undefined);
    await execution.prompted;
    return { id: record.id, interactionId, execution, cancel, answered };
  }

  const statusOf = async (id: string, interactionId = 'i1') =>
    (await store.get(id))!.interactions[interactionId].status;

  describe('asking', () => {
    it('publishes interaction_required with the prompt, then interaction_resolved with the normalized answer', async () => {
      const prompt = aPrompt('radio');
      const ask = await asking(prompt);
      await executions.respond(NOBODY, ask.id, 'i1', { input_type: 'radio', selected_option: { id: 'b' } });
      await ask.answered;
      expect(ask.execution.events).toEqual([
        { kind: 'interaction_required', interactionId: 'i1', prompt },
        {
          kind: 'interaction_resolved',
          interactionId: 'i1',
          response: { type: 'radio', selected_option: prompt.options![1] },
        },
      ]);
    });

    it('the execution is waiting while the prompt is open and running again once answered', async () => {
      const ask = await asking();
      expect(await store.get(ask.id)).toMatchObject({
        status: 'interaction_required',
        openInteractionId: 'i1',
      });
      await executions.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'x' });
      expect((await store.get(ask.id))!.status).toBe('running');
    });
  });

  describe('timeout against answer', () => {
    it('after timeout + 5 s the wait fails with a timeout; a later answer gets "already resolved"', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const ask = await asking(aPrompt('text', { timeout: 1 }));
      await jest.advanceTimersByTimeAsync(5_999);
      expect(await statusOf(ask.id)).toBe('open');
      await jest.advanceTimersByTimeAsync(1);
      const err = await rejectionOf(ask.answered);
      expect(err).toBeInstanceOf(PromptTimeoutError);
      expect((err as Error).message).toBe('HITL prompt timed out after 1s waiting for human response');
      expect(await statusOf(ask.id)).toBe('expired');
      expectAppError(
        await rejectionOf(executions.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'late' })),
        ErrorCode.AlreadyResolved,
      );
    });

    it('an answer accepted before the deadline is delivered even if the deadline passes while it is on its way', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const gated = new GatedBroker();
      await wire(gated);
      const ask = await asking(aPrompt('text', { timeout: 1 }));
      const responding = executions.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'just in time' });
      await jest.advanceTimersByTimeAsync(10_000);
      expect(await statusOf(ask.id)).toBe('resolved');
      gated.release();
      await responding;
      expect(await ask.answered).toEqual({ type: 'text', text: 'just in time' });
    });

    it('waitSeconds stands in for a prompt without a timeout of its own; null waits for ever', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const record = anExecutionRecord();
      await store.create(record);
      const execution = new AskingExecution(record.id, store);
      const bounded = service.ask(execution, aPrompt('text'), new LazyAbort(), 'i1', 2);
      bounded.catch(() => undefined);
      const forever = service.ask(execution, aPrompt('text'), new LazyAbort(), 'i2');
      await jest.advanceTimersByTimeAsync(7_000);
      expect(await rejectionOf(bounded)).toBeInstanceOf(PromptTimeoutError);
      await jest.advanceTimersByTimeAsync(24 * 3600 * 1000);
      expect(await statusOf(record.id, 'i2')).toBe('open');
      await executions.respond(NOBODY, record.id, 'i2', { type: 'text', text: 'eventually' });
      expect(await forever).toEqual({ type: 'text', text: 'eventually' });
    });
  });

  describe('cancel', () => {
    it('a cancel ends the wait with its reason; a later answer gets "already resolved"', async () => {
      const ask = await asking();
      const reason = new Error('Execution cancelled');
      ask.cancel.abort(reason);
      expect(await rejectionOf(ask.answered)).toBe(reason);
      expect(await statusOf(ask.id)).toBe('cancelled');
      expectAppError(
        await rejectionOf(executions.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'late' })),
        ErrorCode.AlreadyResolved,
      );
    });

    it('an execution already cancelled asks nobody', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const execution = new AskingExecution(record.id, store);
      const cancel = new LazyAbort();
      const reason = new Error('gone');
      cancel.abort(reason);
      expect(await rejectionOf(service.ask(execution, aPrompt('text'), cancel, 'i1'))).toBe(reason);
      expect(execution.events).toEqual([]);
      expect((await store.get(record.id))!.interactions).toEqual({});
    });

    it('an answer accepted first is not undone by a cancel that comes after', async () => {
      const ask = await asking();
      await executions.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'kept' });
      ask.cancel.abort(new Error('too late'));
      expect(await ask.answered).toEqual({ type: 'text', text: 'kept' });
      expect(await statusOf(ask.id)).toBe('resolved');
    });
  });

  describe('answers that do not fit the prompt', () => {
    it('a wrong option is a validation error at body.response; the prompt stays open for a right one', async () => {
      const ask = await asking(aPrompt('dropdown'));
      const raw = { type: 'dropdown', selected_option: { id: 'zz' } };
      const err = await rejectionOf(executions.respond(NOBODY, ask.id, 'i1', raw));
      expectAppError(err, ErrorCode.ValidationFailed);
      expect((err as AppError).extra.issues).toEqual([
        {
          type: 'value_error',
          loc: ['body', 'response'],
          msg: `selected option "zz" is not one of the prompt's options ("a", "b", "c")`,
          input: raw,
        },
      ]);
      expect(await statusOf(ask.id)).toBe('open');
      await executions.respond(NOBODY, ask.id, 'i1', { type: 'dropdown', selected_option: { value: 'vc' } });
      expect(await ask.answered).toMatchObject({ type: 'dropdown', selected_option: { id: 'c' } });
    });
  });

  describe('accept: checking an answer against the interaction it answers', () => {
    const accept = (interaction: InteractionRecord | undefined, raw: unknown) => () =>
      service.accept('e1', 'i1', interaction, raw);

    it('a closed interaction gets "already resolved", whatever the answer', () => {
      for (const status of ['resolved', 'expired', 'cancelled'] as const) {
        const closed = { ...anOpenInteraction(), status };
        expectAppError(
          thrownBy(accept(closed, { type: 'text', text: 'late' })),
          ErrorCode.AlreadyResolved,
          'Interaction i1 has already been resolved',
        );
      }
    });

    it('no interaction is 404; an open one gets the answer normalized', () => {
      expectAppError(
        thrownBy(accept(undefined, { type: 'text', text: 'x' })),
        ErrorCode.NotFound,
        'Interaction i1 not found for execution e1',
      );
      expect(accept(anOpenInteraction(), { input_type: 'text', text: 'x' })()).toEqual({
        type: 'text',
        text: 'x',
      });
    });

    it('an answer larger than the broker carries is 413 naming the limit; in one process any size goes', async () => {
      const big = { type: 'text', text: 'x'.repeat(200) };
      expect(accept(anOpenInteraction(), big)()).toEqual(big);
      await wire(
        new (class extends InProcessInteractionBroker {
          override get maxAnswerChars() {
            return 100;
          }
        })(),
      );
      expectAppError(
        thrownBy(accept(anOpenInteraction(), big)),
        ErrorCode.PayloadTooLarge,
        'The answer is 225 characters of JSON; at most 100 characters are accepted here',
      );
    });
  });

  describe('notifications', () => {
    it('are acknowledged at once: nothing waits, the record keeps them resolved', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const execution = new AskingExecution(record.id, store);
      const prompt = aPrompt('notification');
      expect(await service.ask(execution, prompt, new LazyAbort(), 'n1')).toEqual({ type: 'notification' });
      expect(execution.events.map((e) => e.kind)).toEqual(['interaction_required', 'interaction_resolved']);
      expect(await store.get(record.id)).toMatchObject({
        status: 'running',
        interactions: { n1: { status: 'resolved' } },
      });
      expect(broker.waiting).toBe(0);
    });
  });
});
