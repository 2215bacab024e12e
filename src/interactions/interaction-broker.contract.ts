import type { InteractionBroker } from './interaction.broker';

/** What every InteractionBroker adapter must do; a spec per adapter calls this with a factory. */
export function interactionBrokerContract(
  name: string,
  makeBroker: () => Promise<InteractionBroker> | InteractionBroker,
) {
  describe(`InteractionBroker contract: ${name}`, () => {
    let broker: InteractionBroker;
    beforeEach(async () => {
      broker = await makeBroker();
    });

    it('wakes the waiter of an interaction with the answer delivered for it', async () => {
      const first = broker.wait('i1');
      const second = broker.wait('i2');
      await broker.deliver('i2', { type: 'text', text: 'two' });
      await broker.deliver('i1', { type: 'text', text: 'one' });
      await expect(first).resolves.toEqual({ type: 'text', text: 'one' });
      await expect(second).resolves.toEqual({ type: 'text', text: 'two' });
    });

    it('rejects an abandoned wait with the reason given, and ignores an answer after it', async () => {
      const waiting = broker.wait('i1');
      broker.abandon('i1', new Error('timed out'));
      await expect(waiting).rejects.toThrow('timed out');
      await expect(broker.deliver('i1', { type: 'text', text: 'late' })).resolves.toBeUndefined();
    });

    it('accepts an answer nobody waits for without failing', async () => {
      await expect(broker.deliver('nobody', { type: 'text', text: 'x' })).resolves.toBeUndefined();
    });
  });
}
