import { answerOf, type InteractionBroker } from './interaction.broker';

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
      const first = answerOf(broker, 'i1');
      const second = answerOf(broker, 'i2');
      await broker.deliver('i2', { type: 'text', text: 'two' });
      await broker.deliver('i1', { type: 'text', text: 'one' });
      await expect(first).resolves.toEqual({ type: 'text', text: 'one' });
      await expect(second).resolves.toEqual({ type: 'text', text: 'two' });
    });

    it('rejects an abandoned wait with the reason given, and ignores an answer after it', async () => {
      const waiting = answerOf(broker, 'i1');
      broker.abandon('i1', new Error('timed out'));
      await expect(waiting).rejects.toThrow('timed out');
      await expect(broker.deliver('i1', { type: 'text', text: 'late' })).resolves.toBeUndefined();
    });

    it('accepts an answer nobody waits for without failing', async () => {
      await expect(broker.deliver('nobody', { type: 'text', text: 'x' })).resolves.toBeUndefined();
    });

    if (makePeer) {
      it('across processes: an answer delivered on one wakes the waiter on another, and only that one', async () => {
        const [b, c] = [await makePeer(), await makePeer()];
        const onA = answerOf(broker, 'on-a');
        const onC = answerOf(c, 'on-c');
        await b.deliver('on-a', { type: 'text', text: 'for a' });
        await b.deliver('on-c', { type: 'text', text: 'for c' });
        await expect(onA).resolves.toEqual({ type: 'text', text: 'for a' });
        await expect(onC).resolves.toEqual({ type: 'text', text: 'for c' });
      });

      it('across processes: an answer for a wait abandoned on its process is ignored there', async () => {
        const b = await makePeer();
        const waiting = answerOf(broker, 'gone');
        broker.abandon('gone', new Error('timed out'));
        await expect(waiting).rejects.toThrow('timed out');
        await expect(b.deliver('gone', { type: 'text', text: 'late' })).resolves.toBeUndefined();
        const again = answerOf(broker, 'next');
        await b.deliver('next', { type: 'text', text: 'next' });
        await expect(again).resolves.toEqual({ type: 'text', text: 'next' });
      });
    }
  });
}
