import { randomUUID } from 'node:crypto';
import WebSocket, { type ClientOptions } from 'ws';
import { WAIT_MS } from './timing';

/** A message from the server, as the NAT schema shapes it. */
export type WsMessage = Record<string, unknown> & {
  type: string;
  id: string;
  parent_id?: string | null;
  conversation_id?: string | null;
  status?: string;
  content: Record<string, unknown>;
};

export interface Closed {
  code: number;
  reason: string;
}

/** A real `ws` client that queues what it receives and reads it in order. */
export class WsClient {
  readonly received: WsMessage[] = [];
  readonly closed: Promise<Closed>;
  private read = 0;
  private wake?: () => void;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.received.push(JSON.parse(data.toString()) as WsMessage);
      this.wake?.();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString() });
        this.wake?.();
      }),
    );
  }

  /** Opens a socket to `base` (the server's http:// URL) at `path` with an optional query. */
  static connect(
    base: string,
    query: Record<string, string> = {},
    options: ClientOptions & { path?: string } = {},
  ): Promise<WsClient> {
    const url = new URL(options.path ?? '/websocket', base.replace(/^http/, 'ws'));
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    const socket = new WebSocket(url, options);
    const client = new WsClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next unread message (that matches `match`, skipping none: a mismatch fails the test). */
  async next(timeoutMs = WAIT_MS): Promise<WsMessage> {
    const deadline = Date.now() + timeoutMs;
    while (this.read >= this.received.length) {
      const left = deadline - Date.now();
      if (left <= 0 || this.socket.readyState === WebSocket.CLOSED) {
        throw new Error(`no message within ${timeoutMs} ms; read so far: ${JSON.stringify(this.received)}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.received[this.read++];
  }

  /** Reads messages up to and including the first that matches; returns all of them. */
  async until(match: (m: WsMessage) => boolean, timeoutMs = WAIT_MS): Promise<WsMessage[]> {
    const seen: WsMessage[] = [];
    for (;;) {
      const message = await this.next(timeoutMs);
      seen.push(message);
      if (match(message)) return seen;
    }
  }

  /** Reads one whole answer: up to the `complete` response and the trace message that follows it. */
  async run(timeoutMs = WAIT_MS): Promise<WsMessage[]> {
    const seen = await this.until(isComplete, timeoutMs);
    seen.push(await this.next(timeoutMs));
    return seen;
  }

  close(): void {
    this.socket.close();
  }
}

/** For a describe block: a `connect` whose clients are closed after each test. */
export function connectClosingAfterEach(): typeof WsClient.connect {
  const open: WsClient[] = [];
  afterEach(() => open.splice(0).forEach((c) => c.close()));
  return async (...args) => {
    const client = await WsClient.connect(...args);
    open.push(client);
    return client;
  };
}

export const isComplete = (m: WsMessage) => m.type === 'system_response_message' && m.status === 'complete';

/** A NAT `user_message` with one user text (or a whole history). */
export function userMessage(
  text: string | { role: string; text: string }[],
  fields: { schema_type?: string; id?: string; conversation_id?: string } = {},
): Record<string, unknown> {
  const history = typeof text === 'string' ? [{ role: 'user', text }] : text;
  return {
    type: 'user_message',
    schema_type: fields.schema_type ?? 'chat_stream',
    id: fields.id ?? randomUUID(),
    conversation_id: fields.conversation_id ?? 'conv-1',
    content: { messages: history.map((m) => ({ role: m.role, content: [{ type: 'text', text: m.text }] })) },
    timestamp: new Date().toISOString(),
  };
}

/** A NAT `user_interaction_message` replying with `text`, as the NAT UI sends it. */
export function reply(
  text: string,
  fields: { parent_id?: string; conversation_id?: string | null; cancel?: boolean } = {},
): Record<string, unknown> {
  return {
    type: 'user_interaction_message',
    id: randomUUID(),
    thread_id: fields.parent_id,
    parent_id: fields.parent_id,
    // null leaves the field out, as a client that does not track conversations sends it
    ...(fields.conversation_id === null ? {} : { conversation_id: fields.conversation_id ?? 'conv-1' }),
    content: {
      messages: [{ role: 'user', content: [{ type: 'text', text }] }],
      ...(fields.cancel ? { cancel: true } : {}),
    },
    timestamp: new Date().toISOString(),
  };
}
