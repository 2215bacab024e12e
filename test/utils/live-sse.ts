import { request, type IncomingHttpHeaders, type IncomingMessage, type ClientRequest } from 'node:http';
import { createInterface } from 'node:readline';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { WAIT_MS } from './timing';

/** One SSE frame as sent (the text between blank lines), with its fields split out. */
export interface Frame {
  raw: string;
  /** The `id:` field as a number, when present. */
  id?: number;
  /** `event:` (undefined for plain data frames). */
  event?: string;
  /** `data:` (undefined for frames without data, e.g. `intermediate_data:` frames). */
  data?: string;
  /** Every `name: value` line of the frame (comments excluded). */
  fields: Record<string, string>;
  /** True for a comment-only frame such as `: keep-alive`. */
  comment: boolean;
}

export interface OpenOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

function parseFrame(raw: string): Frame {
  const fields: Record<string, string> = {};
  let comment = true;
  for (const line of raw.split('\n')) {
    if (line.startsWith(':')) continue;
    comment = false;
    const colon = line.indexOf(':');
    const name = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    fields[name] = value;
  }
  const id = fields.id === undefined ? undefined : Number(fields.id);
  return { raw, id, event: fields.event, data: fields.data, fields, comment };
}

/**
 * An SSE response read as it arrives (node:http), so a test can wait for one frame, act (answer a
 * prompt, drop the connection) and go on reading.
 */
export class LiveStream {
  /** The body so far, byte for byte. */
  text = '';
  /** Complete frames so far, in order. */
  readonly frames: Frame[] = [];
  /** Standard events (eventsource-parser's reading of the same bytes). */
  readonly events: EventSourceMessage[] = [];
  /** Resolves when the server ends the response (or the connection goes away). */
  readonly ended: Promise<void>;
  isEnded = false;
  private cursor = 0;
  private buffer = '';
  private readonly listeners = new Set<() => void>();
  private readonly parser = createParser({ onEvent: (e) => this.events.push(e) });

  constructor(
    readonly req: ClientRequest,
    readonly res: IncomingMessage,
  ) {
    res.setEncoding('utf8');
    this.ended = new Promise((resolve) => {
      const done = () => {
        if (this.isEnded) return;
        this.isEnded = true;
        this.notify();
        resolve();
      };
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    res.on('data', (chunk: string) => {
      this.text += chunk;
      this.parser.feed(chunk);
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\n\n')) >= 0) {
        this.frames.push(parseFrame(this.buffer.slice(0, at)));
        this.buffer = this.buffer.slice(at + 2);
      }
      this.notify();
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.res.headers;
  }

  /** Plain `data:` frames (no `event:`), their data parsed as JSON (`[DONE]` excluded). */
  dataFrames(): { frame: Frame; json: unknown }[] {
    return this.frames
      .filter((f) => f.event === undefined && f.data !== undefined && f.data !== '[DONE]')
      .map((frame) => ({ frame, json: JSON.parse(frame.data!) as unknown }));
  }

  /**
   * The next frame (after the ones already returned by `next`) that matches; waits for it. Fails if the
   * stream ends or `timeoutMs` passes first.
   */
  async next(match: (f: Frame) => boolean = () => true, timeoutMs = WAIT_MS): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.frames.length) {
        const frame = this.frames[this.cursor++];
        if (match(frame)) return frame;
      }
      if (this.isEnded) throw new Error(`stream ended without the frame; got:\n${this.text}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no such frame within ${timeoutMs} ms; got:\n${this.text}`);
      await this.change(left);
    }
  }

  /** The next `event: <name>` frame's data as JSON. */
  async nextEvent<T = Record<string, unknown>>(name: string, timeoutMs = WAIT_MS): Promise<T> {
    const frame = await this.next((f) => f.event === name, timeoutMs);
    return JSON.parse(frame.data!) as T;
  }

  /** Waits for the server to end the response. */
  async end(timeoutMs = WAIT_MS): Promise<this> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.ended,
      new Promise((_r, reject) => {
        timer = setTimeout(
          () => reject(new Error(`stream still open after ${timeoutMs} ms; got:\n${this.text}`)),
          timeoutMs,
        );
      }),
    ]).finally(() => clearTimeout(timer));
    return this;
  }

  /**
   * Whether nothing arrives and the stream stays open while `request` (to the same server) makes its
   * round trip: anything the server had already written to this stream comes in first.
   */
  async quietWhile(request: () => Promise<unknown>): Promise<boolean> {
    const before = this.text.length;
    await request();
    return this.text.length === before && !this.isEnded;
  }

  /** Drops the connection from the client side. */
  destroy(): void {
    this.req.destroy();
    this.res.destroy();
  }

  private change(timeoutMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.listeners.delete(done);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      this.listeners.add(done);
    });
  }

  private notify(): void {
    for (const l of [...this.listeners]) l();
  }
}

function send(url: string, options: OpenOptions): Promise<{ req: ClientRequest; res: IncomingMessage }> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        agent: false,
        headers: {
          accept: 'text/event-stream',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => resolve({ req, res }),
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Opens an SSE request (POST when `body` is given) and returns once the headers are in. */
export async function openStream(url: string, options: OpenOptions = {}): Promise<LiveStream> {
  const { req, res } = await send(url, options);
  return new LiveStream(req, res);
}

/**
 * The response body line by line as it arrives (what httpx's `iter_lines()` gives a Python client), as
 * an iterator the caller can also advance by hand with `next()`; `close` drops the connection.
 */
export async function streamLines(
  url: string,
  body: unknown,
): Promise<{ lines: AsyncIterator<string>; close: () => void }> {
  const { req, res } = await send(url, { body });
  const lines = createInterface({ input: res, crlfDelay: Infinity });
  return {
    lines: lines[Symbol.asyncIterator](),
    close: () => {
      lines.close();
      req.destroy();
      res.destroy();
    },
  };
}
