import { DeliveryBarrier } from './delivery-barrier';

/** A PING whose answer the test gives. */
class Pings {
  readonly out: Array<{ answer: () => void; fail: () => void }> = [];
  connected = true;

  send = (): Promise<unknown> | undefined => {
    if (!this.connected) return undefined;
    return new Promise<void>((resolve, reject) =>
      this.out.push({ answer: resolve, fail: () => reject(new Error('Connection is closed.')) }),
    );
  };
}

describe('DeliveryBarrier', () => {
  it('callers while a PING is out share the next one, sent once that one is answered', async () => {
    const pings = new Pings();
    const barrier = new DeliveryBarrier(pings.send, 1000);
    const first = barrier.passed();
    const second = [barrier.passed(), barrier.passed()];
    expect(pings.out).toHaveLength(1);
    pings.out[0].answer();
    expect(await first).toBe(true);
    // The second PING leaves only after the first was answered: what they wait for may be later.
    expect(pings.out).toHaveLength(2);
    pings.out[1].answer();
    expect(await Promise.all(second)).toEqual([true, true]);
  });

  it('false at once without a connection, false for a PING that fails, false past the bound', async () => {
    const pings = new Pings();
    const barrier = new DeliveryBarrier(pings.send, 50);
    pings.connected = false;
    expect(await barrier.passed()).toBe(false);
    pings.connected = true;
    const failing = barrier.passed();
    pings.out[0].fail();
    expect(await failing).toBe(false);
    const started = performance.now();
    expect(await barrier.passed()).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    // A later call sends a PING of its own.
    const later = barrier.passed();
    expect(pings.out).toHaveLength(3);
    pings.out[2].answer();
    expect(await later).toBe(true);
  });
});
