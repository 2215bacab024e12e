import type { ServerResponse } from 'node:http';

/** Time between the frames before a bare line and the line, so the peer reads them apart. */
const ALONE_GAP_MS = 50;

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
  /** Writes that must wait for earlier ones to leave (a line that needs a chunk of its own). */
  private tail?: Promise<void>;

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
      // No Connection header of our own: Node answers the request's (RFC 9112 §9.6), closing the
      // socket after the stream when the client asked for `Connection: close`.
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

  /**
   * A line outside SSE framing (NAT's bare JSON error on legacy streams), sent in a network chunk of
   * its own: the NAT UI recognises the error only when a whole chunk it reads parses as that JSON.
   * What came before leaves first; the line follows once the socket took it and the peer had a
   * moment to read it.
   */
  raw(line: string): void {
    if (this.isClosed) return;
    this.flush();
    this.sentFirst = true;
    const before = this.tail ?? Promise.resolve();
    this.tail = before
      .then(() => this.drained())
      .then(() => new Promise<void>((resolve) => setTimeout(resolve, ALONE_GAP_MS)))
      .then(() => {
        if (!this.res.destroyed && !this.res.writableEnded) this.res.write(`${line}\n`);
      });
  }

  /**
   * Ends the stream without a terminal event because this server stops and another replica goes on
   * with the execution: `retry:` tells an EventSource when to reconnect; other clients re-attach with
   * `Last-Event-ID` (`GET /executions/{id}/stream`, the id from `X-Execution-Id`).
   */
  endForReattach(retryMs: number): void {
    this.write(`retry: ${retryMs}\n: server stopping; re-attach with Last-Event-ID\n\n`);
    this.end();
  }

  end(): void {
    this.flush();
    this.stop();
    if (this.tail) {
      void this.tail.then(() => {
        if (!this.res.writableEnded) this.res.end();
      });
      return;
    }
    if (!this.res.writableEnded) this.res.end();
  }

  /** Resolves once what was written so far has been handed to the socket. */
  private drained(): Promise<void> {
    return new Promise((resolve) => {
      if (this.res.destroyed || this.res.writableEnded) return resolve();
      this.res.write('', () => resolve());
    });
  }

  private write(chunk: string): void {
    if (this.isClosed) return;
    if (this.tail) {
      this.tail = this.tail.then(() => {
        if (!this.res.destroyed && !this.res.writableEnded) this.res.write(chunk);
      });
      return;
    }
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
