import { Logger } from '@nestjs/common';
import { WebSocket } from 'ws';
import type { Identity } from '../core/identity/identity';
import type { RequestMetadata } from '../runtime/workflow-context';
import type { RunListener, WsRun } from './ws-run';
import type { ServerMessage } from './ws-messages';

const logger = new Logger('WebSocket');

/** RFC 6455 / IANA close code 1012: the server is restarting, the client may reconnect. */
export const SERVICE_RESTART = 1012;
/** At most 123 bytes (a close frame's reason). */
const HANDED_OVER_REASON = 'Server restarting: reconnect with ?conversation_id= to go on';

/**
 * One WebSocket connection: who it acts as, the run it shows, and its messages handled one at a time
 * in the order they arrived (a reply sent right after a user message finds that message's run).
 */
export class WsSession implements RunListener {
  identity: Identity;
  /** The run this connection shows: the last one it started or took over. */
  run: WsRun | null = null;
  closed = false;
  private queue: Promise<void>;

  constructor(
    readonly socket: WebSocket,
    /** The handshake as workflows see it (`ctx.request`). */
    readonly request: RequestMetadata,
    identity: Identity,
    ready: Promise<void>,
  ) {
    this.identity = identity;
    this.queue = ready;
  }

  /** The conversation this connection was opened for (`?conversation_id=`), whose run it may take over. */
  get conversationId(): string | null {
    const id = this.request.query.conversation_id;
    return typeof id === 'string' && id !== '' ? id : null;
  }

  send(message: ServerMessage): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  /**
   * The run goes on on another replica (this one stops): 1012 "Service Restart" tells the client to
   * reconnect, to any replica, with `?conversation_id=` for the pending prompt and the rest of the run.
   */
  handedOver(): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(SERVICE_RESTART, HANDED_OVER_REASON);
  }

  /** Runs `task` after every message that arrived before it. */
  enqueue(task: () => Promise<void> | void): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.closed) return;
      try {
        await task();
      } catch (err) {
        logger.error(`A WebSocket message failed: ${(err as Error)?.stack ?? String(err)}`);
      }
    });
    return this.queue;
  }
}
