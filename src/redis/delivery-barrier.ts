import { settledWithin } from '../core/settled-within';

/**
 * Tells whether every message published before a call has reached this process. Redis answers a PING
 * on a subscriber connection after every message it sent on it before, in order, so once the PING is
 * answered those messages have been handed to their listeners. Calls share PINGs: one made while a
 * PING is out waits for the next one (what it must see may have been published after that one left).
 */
export class DeliveryBarrier {
  private out?: Promise<boolean>;
  private next?: Promise<boolean>;

  constructor(
    /** PINGs the subscriber connection; undefined when it is not connected and subscribed now. */
    private readonly ping: () => Promise<unknown> | undefined,
    /** Past this the answer is false: the caller reads what it needs from elsewhere. */
    private readonly timeoutMs: number,
  ) {}

  /** True once every message published before the call has been received; false when that is unknown. */
  passed(): Promise<boolean> {
    if (!this.out) return this.send();
    return (this.next ??= this.out.then(() => {
      this.next = undefined;
      return this.send();
    }));
  }

  private send(): Promise<boolean> {
    const ping = this.ping();
    if (!ping) return Promise.resolve(false);
    const answered = settledWithin(
      ping.then(
        () => true,
        () => false,
      ),
      this.timeoutMs,
      false,
    ).finally(() => {
      if (this.out === answered) this.out = undefined;
    });
    this.out = answered;
    return answered;
  }
}
