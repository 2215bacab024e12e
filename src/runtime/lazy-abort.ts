/** A waiter kept as an object (its method on the prototype): watching costs no closure. */
export interface AbortObserver {
  cancelled(reason: unknown): void;
}

type AbortListener = ((reason: unknown) => void) | AbortObserver;

/** What a waiter needs of a cancellation: whether it happened, and a call when it does. */
export interface AbortWatch {
  readonly aborted: boolean;
  readonly abortReason: unknown;
  onAbort(listener: (reason: unknown) => void): () => void;
  /** Like `onAbort` for an object; `unwatch` stops it. */
  watch(observer: AbortObserver): void;
  unwatch(observer: AbortObserver): void;
}

/**
 * An AbortController made only when someone looks at its signal: most runs finish without anyone
 * listening, and the controller is a measurable share of a short request.
 */
export class LazyAbort implements AbortWatch {
  private controller?: AbortController;
  private reason?: unknown;
  /** An array, not a Set: one or two listeners at most, and a waiting execution keeps them. */
  private listeners?: AbortListener[];

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason !== undefined) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.reason !== undefined;
  }

  get abortReason(): unknown {
    return this.reason;
  }

  /** Calls `listener` on abort without making a signal; returns a function that stops listening. */
  onAbort(listener: (reason: unknown) => void): () => void {
    this.watch(listener);
    return () => this.unwatch(listener);
  }

  // Arrays of the exact length (a push would reserve 17 slots, kept by every waiting execution).
  watch(listener: AbortListener): void {
    this.listeners = this.listeners ? [...this.listeners, listener] : [listener];
  }

  unwatch(listener: AbortListener): void {
    const left = this.listeners?.filter((l) => l !== listener);
    this.listeners = left?.length ? left : undefined;
  }

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
    for (const listener of this.listeners?.slice() ?? []) {
      if (typeof listener === 'function') listener(reason);
      else listener.cancelled(reason);
    }
    this.listeners = undefined;
  }
}
