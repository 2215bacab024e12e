/** What a waiter needs of a cancellation: whether it happened, and a call when it does. */
export interface AbortWatch {
  readonly aborted: boolean;
  readonly abortReason: unknown;
  onAbort(listener: (reason: unknown) => void): () => void;
}

/**
 * An AbortController made only when someone looks at its signal: most runs finish without anyone
 * listening, and the controller is a measurable share of a short request.
 */
export class LazyAbort implements AbortWatch {
  private controller?: AbortController;
  private reason?: unknown;
  /** An array, not a Set: one or two listeners at most, and a waiting execution keeps them. */
  private listeners?: ((reason: unknown) => void)[];

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
    (this.listeners ??= []).push(listener);
    return () => {
      const at = this.listeners?.indexOf(listener) ?? -1;
      if (at >= 0) this.listeners!.splice(at, 1);
    };
  }

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
    for (const listener of this.listeners?.slice() ?? []) listener(reason);
    this.listeners = undefined;
  }
}
