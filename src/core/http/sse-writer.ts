import type { ServerResponse } from 'node:http';

/**
 * Writes Server-Sent Events by hand: NeMo Agent Toolkit's streams need non-standard lines
 * (`intermediate_data:`, bare JSON errors) that Nest's @Sse() cannot write. Headers go out before the
 * workflow starts, every frame is flushed as produced, and silence gets a `: keep-alive` comment.
 */
export class SseWriter {
  private keepAlive?: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly keepAliveMs: number,
  ) {
    res.once('close', () => this.stop());
  }

  /**
   * When set, every frame starts with `id: <eventId>` so a client that loses the connection can
   * resume with `Last-Event-ID`.
   */
  eventId: number | undefined;

  open(headers: Record<string, string> = {}): void {
    this.res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    this.res.flushHeaders();
    this.res.socket?.setNoDelay(true);
    this.arm();
  }

  /** True once the client went away or the stream ended. */
  get isClosed(): boolean {
    return this.closed || this.res.destroyed || this.res.writableEnded;
  }

  /** Calls `fn` once if the client disconnects before the stream ends. */
  onDisconnect(fn: () => void): void {
    this.res.once('close', () => {
      if (!this.res.writableFinished) fn();
    });
  }

  data(value: unknown): void {
    this.write(`${this.id()}data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`);
  }

  event(name: string, value: unknown): void {
    this.write(`${this.id()}event: ${name}\ndata: ${JSON.stringify(value)}\n\n`);
  }

  /** A non-standard field line such as `intermediate_data: {...}`. */
  field(name: string, value: unknown): void {
    this.write(`${this.id()}${name}: ${JSON.stringify(value)}\n\n`);
  }

  private id(): string {
    return this.eventId === undefined ? '' : `id: ${this.eventId}\n`;
  }

  /** A line outside SSE framing (NAT's bare JSON error on legacy streams). */
  raw(line: string): void {
    this.write(`${line}\n`);
  }

  end(): void {
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): void {
    if (this.isClosed) return;
    this.res.write(chunk);
    this.arm();
  }

  private arm(): void {
    if (this.closed) return;
    if (this.keepAlive) {
      this.keepAlive.refresh();
      return;
    }
    this.keepAlive = setTimeout(() => {
      this.keepAlive = undefined;
      this.write(': keep-alive\n\n');
    }, this.keepAliveMs);
    this.keepAlive.unref();
  }

  private stop(): void {
    this.closed = true;
    if (this.keepAlive) clearTimeout(this.keepAlive);
    this.keepAlive = undefined;
  }
}
