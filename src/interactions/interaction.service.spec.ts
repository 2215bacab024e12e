import { AppError, ErrorCode } from '../core/errors/app-error';
import { LazyAbort } from '../executions/lazy-abort';
import { MemoryExecutionStore } from '../executions/memory-execution.store';
import { PromptTimeoutError, type Prompt, type PromptAnswer } from '../runtime/prompts';
import { anExecutionRecord, anIdentity, aPrompt, AskingExecution } from '../../test/utils/builders';
import { InProcessInteractionBroker } from './interaction.broker';
import { InteractionService } from './interaction.service';

/** A broker that holds accepted answers until `release()`: the gap in which a timeout can still fire. */
class GatedBroker extends InProcessInteractionBroker {
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));

  override async deliver(interactionId: string, answer: PromptAnswer): Promise<void> {
    await this.gate;
    return super.deliver(interactionId, answer);
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

function expectAppError(err: unknown, code: ErrorCode, message?: string): void {
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  if (message !== undefined) expect((err as AppError).message).toBe(message);
}

const ALICE = anIdentity('alice');
const BOB = anIdentity('bob');
const NOBODY = anIdentity(null);

describe('InteractionService', () => {
  let store: MemoryExecutionStore;
  let broker: InProcessInteractionBroker;
  let service: InteractionService;

  beforeEach(() => {
    store = new MemoryExecutionStore();
    broker = new InProcessInteractionBroker();
    service = new InteractionService(store, broker);
  });
  afterEach(() => jest.useRealTimers());

  /** An execution of `ownerId` waiting on `prompt`: the workflow's side of the rendezvous. */
  async function asking(
    prompt: Prompt = aPrompt('text'),
    ownerId: string | null = null,
    interactionId = 'i1',
  ) {
    const record = anExecutionRecord({ ownerId });
    await store.create(record);
    const execution = new AskingExecution(record.id);
    const cancel = new LazyAbort();
    const answered = service.ask(execution, prompt, cancel, interactionId);
    answered.catch(() => undefined);
    await execution.prompted;
    return { id: record.id, interactionId, execution, cancel, answered };
  }

  const statusOf = async (id: string, interactionId = 'i1') =>
    (await store.get(id))!.interactions[interactionId].status;

  describe('first answer wins', () => {
    it('the workflow gets the first answer; a second gets "already resolved"', async () => {
      const ask = await asking();
      await service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'first' });
      expectAppError(
        await rejectionOf(service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'second' })),
        ErrorCode.AlreadyResolved,
        'Interaction i1 has already been resolved',
      );
      expect(await ask.answered).toEqual({ type: 'text', text: 'first' });
      expect(await statusOf(ask.id)).toBe('resolved');
    });

    it('of answers sent at the same moment exactly one is accepted, and it is the one the workflow gets', async () => {
      const ask = await asking();
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: `n${i}` }),
        ),
      );
      const accepted = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
      expect(accepted).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') expectAppError(r.reason, ErrorCode.AlreadyResolved);
      }
      expect(await ask.answered).toEqual({ type: 'text', text: `n${accepted[0]}` });
    });

    it('publishes interaction_required with the prompt, then interaction_resolved with the normalized answer', async () => {
      const prompt = aPrompt('radio');
      const ask = await asking(prompt);
      await service.respond(NOBODY, ask.id, 'i1', { input_type: 'radio', selected_option: { id: 'b' } });
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
      await service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'x' });
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
        await rejectionOf(service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'late' })),
        ErrorCode.AlreadyResolved,
      );
    });

    it('an answer accepted before the deadline is delivered even if the deadline passes while it is on its way', async () => {
      jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
      const gated = new GatedBroker();
      service = new InteractionService(store, gated);
      const ask = await asking(aPrompt('text', { timeout: 1 }));
      const responding = service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'just in time' });
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
      const execution = new AskingExecution(record.id);
      const bounded = service.ask(execution, aPrompt('text'), new LazyAbort(), 'i1', 2);
      bounded.catch(() => undefined);
      const forever = service.ask(execution, aPrompt('text'), new LazyAbort(), 'i2');
      await jest.advanceTimersByTimeAsync(7_000);
      expect(await rejectionOf(bounded)).toBeInstanceOf(PromptTimeoutError);
      await jest.advanceTimersByTimeAsync(24 * 3600 * 1000);
      expect(await statusOf(record.id, 'i2')).toBe('open');
      await service.respond(NOBODY, record.id, 'i2', { type: 'text', text: 'eventually' });
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
        await rejectionOf(service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'late' })),
        ErrorCode.AlreadyResolved,
      );
    });

    it('an execution already cancelled asks nobody', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const execution = new AskingExecution(record.id);
      const cancel = new LazyAbort();
      const reason = new Error('gone');
      cancel.abort(reason);
      expect(await rejectionOf(service.ask(execution, aPrompt('text'), cancel, 'i1'))).toBe(reason);
      expect(execution.events).toEqual([]);
      expect((await store.get(record.id))!.interactions).toEqual({});
    });

    it('an answer accepted first is not undone by a cancel that comes after', async () => {
      const ask = await asking();
      await service.respond(NOBODY, ask.id, 'i1', { type: 'text', text: 'kept' });
      ask.cancel.abort(new Error('too late'));
      expect(await ask.answered).toEqual({ type: 'text', text: 'kept' });
      expect(await statusOf(ask.id)).toBe('resolved');
    });
  });

  describe('answers that do not fit the prompt', () => {
    it('a wrong option is a validation error at body.response; the prompt stays open for a right one', async () => {
      const ask = await asking(aPrompt('dropdown'));
      const raw = { type: 'dropdown', selected_option: { id: 'zz' } };
      const err = await rejectionOf(service.respond(NOBODY, ask.id, 'i1', raw));
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
      await service.respond(NOBODY, ask.id, 'i1', { type: 'dropdown', selected_option: { value: 'vc' } });
      expect(await ask.answered).toMatchObject({ type: 'dropdown', selected_option: { id: 'c' } });
    });
  });

  describe('owners', () => {
    it("another user (or an anonymous caller) gets 404 for an execution, the owner's answer goes through", async () => {
      const ask = await asking(aPrompt('text'), ALICE.userId);
      for (const stranger of [BOB, NOBODY]) {
        expectAppError(
          await rejectionOf(service.respond(stranger, ask.id, 'i1', { type: 'text', text: 'mine' })),
          ErrorCode.NotFound,
          `Execution ${ask.id} not found`,
        );
      }
      expect(await statusOf(ask.id)).toBe('open');
      await service.respond(ALICE, ask.id, 'i1', { type: 'text', text: 'Alice' });
      expect(await ask.answered).toEqual({ type: 'text', text: 'Alice' });
    });

    it('an anonymous execution is answered by whoever holds its id', async () => {
      const ask = await asking();
      await service.respond(BOB, ask.id, 'i1', { type: 'text', text: 'Bob' });
      expect(await ask.answered).toEqual({ type: 'text', text: 'Bob' });
    });

    it('404 for an unknown execution, and for an unknown interaction of a known one', async () => {
      expectAppError(
        await rejectionOf(service.respond(NOBODY, 'nope', 'i1', { type: 'text', text: 'x' })),
        ErrorCode.NotFound,
        'Execution nope not found',
      );
      const ask = await asking();
      expectAppError(
        await rejectionOf(service.respond(NOBODY, ask.id, 'i9', { type: 'text', text: 'x' })),
        ErrorCode.NotFound,
        `Interaction i9 not found for execution ${ask.id}`,
      );
    });
  });

  describe('notifications', () => {
    it('are acknowledged at once: nothing waits, the record keeps them resolved', async () => {
      const record = anExecutionRecord();
      await store.create(record);
      const execution = new AskingExecution(record.id);
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
