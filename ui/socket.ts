import { loadCredentials } from './api';

/** A message from the WebSocket face (websocket-message-schema.txt). */
export interface ServerMessage {
  type: string;
  id: string;
  parent_id?: string | null;
  conversation_id?: string | null;
  content: Record<string, unknown>;
  status?: string;
  timestamp?: string;
}

export interface SocketEvents {
  message(message: ServerMessage): void;
  /** Connected (again): `true` the first time. */
  open(first: boolean): void;
  /** The server refused the connection or it dropped; the socket retries unless refused. */
  closed(reason: string, retrying: boolean): void;
}

const POLICY_VIOLATION = 1008;

/**
 * The page's connection to the WebSocket face, opened for one conversation (`?conversation_id=`, so a
 * reload takes over the run still going there). Messages sent while it reconnects wait for it.
 */
export class ChatSocket {
  private ws: WebSocket | null = null;
  private outbox: string[] = [];
  private retries = 0;
  private opened = false;
  private stopped = false;

  constructor(
    private readonly path: string,
    readonly conversationId: string,
    private readonly events: SocketEvents,
  ) {
    this.connect();
  }

  send(message: Record<string, unknown>): void {
    const text = JSON.stringify({ ...message, timestamp: new Date().toISOString() });
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.outbox.push(text);
  }

  close(): void {
    this.stopped = true;
    this.ws?.close(1000, 'conversation closed');
  }

  private connect(): void {
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}${this.path}?conversation_id=${encodeURIComponent(this.conversationId)}`;
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.retries = 0;
      const credentials = loadCredentials();
      if (credentials.kind !== 'none') {
        const method = credentials.kind === 'api_key' ? 'api_key' : 'jwt';
        ws.send(
          JSON.stringify({
            type: 'auth_message',
            id: crypto.randomUUID(),
            payload: { method, token: credentials.token },
          }),
        );
      }
      for (const text of this.outbox.splice(0)) ws.send(text);
      this.events.open(!this.opened);
      this.opened = true;
    };
    ws.onmessage = (event) => {
      try {
        this.events.message(JSON.parse(String(event.data)) as ServerMessage);
      } catch {
        // Not JSON: nothing the schema defines.
      }
    };
    ws.onclose = (event) => {
      if (this.ws !== ws || this.stopped) return;
      const refused = event.code === POLICY_VIOLATION;
      this.events.closed(event.reason || `connection closed (${event.code})`, !refused);
      if (refused) return;
      const delay = Math.min(10_000, 500 * 2 ** this.retries++);
      window.setTimeout(() => {
        if (!this.stopped) this.connect();
      }, delay);
    };
  }
}
