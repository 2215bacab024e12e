import type { PromptAnswer } from '../runtime/prompts';
import { answerOf, type InteractionBroker } from './interaction.broker';

/** Waits on an interaction; resolves (to the answer to come) once an answer delivered anywhere reaches it. */
async function waiting(
  broker: InteractionBroker,
  executionId: string,
  interactionId: string,
): Promise<{ answer: Promise<PromptAnswer> }> {
  const { answer, listening } = answerOf(broker, executionId, interactionId);
  await listening;
  return { answer };
}

/** What every InteractionBroker adapter must do; a spec per adapter calls this with a factory. */
export function interactionBrokerContract(
  name: string,
  makeBroker: () => Promise<InteractionBroker> | InteractionBroker,
  /** Adapters shared by several processes: the same broker as another process opens it. */
  makePeer?: () => Promise<InteractionBroker>,
) {
  describe(`InteractionBroker contract: ${name}`, () => {
    let broker: InteractionBroker;
    beforeEach(async () => {
      broker = await makeBroker();
    });

    it('wakes the waiter of an interaction with the answer delivered for it', async () => {
      const first = await waiting(broker, 'e-i1', 'i1');
      const second = await waiting(broker, 'e-i2', 'i2');
      await broker.deliver('e-i2', 'i2', { type: 'text', text: 'two' });
      await broker.deliver('e-i1', 'i1', { type: 'text', text: 'one' });
      await expect(first.answer).resolves.toEqual({ type: 'text', text: 'one' });
      await expect(second.answer).resolves.toEqual({ type: 'text', text: 'two' });
    });

    it('wakes a waiter in this process once the turn that delivered the answer is over: its acknowledgement goes first', async () => {
      const seen: string[] = [];
      const wait = await waiting(broker, 'e-i1', 'i1');
      const woken = wait.answer.then(() => seen.push('workflow resumed'));
      await broker.deliver('e-i1', 'i1', { type: 'text', text: 'one' });
      // What the rest of this turn does (the 204 written after the answer was accepted).
      for (let i = 0; i < 20; i++) await Promise.resolve();
      seen.push('acknowledged');
      await woken;
      expect(seen).toEqual(['acknowledged', 'workflow resumed']);
    });

    it('rejects an abandoned wait with the reason given, and ignores an answer after it', async () => {
      const wait = await waiting(broker, 'e-i1', 'i1');
      broker.abandon('i1', new Error('timed out'));
      await expect(wait.answer).rejects.toThrow('timed out');
      await expect(broker.deliver('e-i1', 'i1', { type: 'text', text: 'late' })).resolves.toBeUndefined();
    });

    it('accepts an answer nobody waits for without failing', async () => {
      await expect(
        broker.deliver('e-nobody', 'nobody', { type: 'text', text: 'x' }),
      ).resolves.toBeUndefined();
    });

    if (makePeer) {
      it('across processes: an answer delivered on one wakes the waiter on another, and only that one', async () => {
        const [b, c] = [await makePeer(), await makePeer()];
        const onA = await waiting(broker, 'e-on-a', 'on-a');
        const onC = await waiting(c, 'e-on-c', 'on-c');
        await b.deliver('e-on-a', 'on-a', { type: 'text', text: 'for a' });
        await b.deliver('e-on-c', 'on-c', { type: 'text', text: 'for c' });
        await expect(onA.answer).resolves.toEqual({ type: 'text', text: 'for a' });
        await expect(onC.answer).resolves.toEqual({ type: 'text', text: 'for c' });
      });

      it('across processes: an answer for a wait abandoned on its process is ignored there', async () => {
        const b = await makePeer();
        const wait = await waiting(broker, 'e-gone', 'gone');
        broker.abandon('gone', new Error('timed out'));
        await expect(wait.answer).rejects.toThrow('timed out');
        await expect(b.deliver('e-gone', 'gone', { type: 'text', text: 'late' })).resolves.toBeUndefined();
        const again = await waiting(broker, 'e-next', 'next');
        await b.deliver('e-next', 'next', { type: 'text', text: 'next' });
        await expect(again.answer).resolves.toEqual({ type: 'text', text: 'next' });
      });
    }
  });
}
