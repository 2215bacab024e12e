/**
 * An AbortController made only when someone looks at its signal: most runs finish without anyone
 * listening, and the controller is a measurable share of a short request.
 */
export class LazyAbort {
  private controller?: AbortController;
  private reason?: unknown;

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

  abort(reason: unknown): void {
    if (this.reason !== undefined) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}
