import type { Redis } from 'ioredis';

/** Blocking readers kept open once their reads end, for the next; past it they are closed. */
const IDLE_READERS = 16;

/**
 * The connections for blocking reads (XREAD BLOCK) that no read uses now, handed to the next reader
 * rather than closed: following a run another replica writes then costs no connection set-up (a TCP
 * handshake, CLIENT SETNAME and the ready check) before its first read. A connection is given back only
 * once none of its commands is under way (a read blocked in Redis cannot be handed on).
 */
export class ReaderPool {
  /** The last one given back at the end. */
  private readonly idle: Redis[] = [];

  constructor(
    /** Opens a new reader connection. */
    private readonly open: () => Redis,
    /** Closes one for good. */
    private readonly close: (client: Redis) => void,
  ) {}

  /** A reader connected now, kept from an earlier reader when there is one. */
  take(): Redis {
    for (let client = this.idle.pop(); client; client = this.idle.pop()) {
      if (client.status === 'ready') return client;
      this.close(client);
    }
    return this.open();
  }

  /** Kept for the next `take` (up to IDLE_READERS) when `open` and connected now, else closed. */
  give(client: Redis, open: boolean): void {
    if (open && client.status === 'ready' && this.idle.length < IDLE_READERS) this.idle.push(client);
    else this.close(client);
  }

  /** `client` was closed: it is not handed out again. */
  forget(client: Redis): void {
    const at = this.idle.indexOf(client);
    if (at >= 0) this.idle.splice(at, 1);
  }

  /** Every connection was closed. */
  clear(): void {
    this.idle.length = 0;
  }
}
