import type { ServerResponse } from 'node:http';

/**
 * Writes Server-Sent Events by hand: NeMo Agent Toolkit's streams need non-standard lines
 * (`intermediate_data:`, bare JSON errors) that Nest's @Sse() cannot write. Headers go out before the
 * workflow starts, frames go out as produced (those produced in the same tick in one write, the
 * first one at once), and silence gets a `: keep-alive` comment.
 */
export class SseWriter {
  private keepAlive?: NodeJS.Timeout;
  private closed = false;
  private pending = '';
  private flushScheduled = false;
  private sentFirst = false;
  private readonly flushNow = () => this.flush();

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

  /** The id goes on the first frame of an event only, so ids never repeat. */
  private id(): string {
    if (this.eventId === undefined) return '';
    const line = `id: ${this.eventId}\n`;
    this.eventId = undefined;
    return line;
  }

  /** A line outside SSE framing (NAT's bare JSON error on legacy streams). */
  raw(line: string): void {
    this.write(`${line}\n`);
  }

  end(): void {
    this.flush();
    this.stop();
    if (!this.res.writableEnded) this.res.end();
  }

  private write(chunk: string): void {
    if (this.isClosed) return;
    if (!this.sentFirst) {
      // The first frame leaves at once rather than when the current burst of frames ends.
      this.sentFirst = true;
      this.res.write(chunk);
      this.res.socket?.uncork();
      this.arm();
      return;
    }
    this.pending += chunk;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      process.nextTick(this.flushNow);
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    if (this.pending === '' || this.isClosed) return;
    const chunk = this.pending;
    this.pending = '';
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
