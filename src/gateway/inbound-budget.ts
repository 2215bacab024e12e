import type { Duplex } from 'node:stream';
import type { RawData, WebSocket } from 'ws';

/** RFC 6455 1009: what a peer sends when it will not take more data (as for a too-big message). */
const TOO_BIG = 1009;

/** The bytes of a client frame's header carrying `payload` bytes (client frames are masked). */
function headerBytes(payload: number): number {
  return 2 + 4 + (payload > 0xffff ? 8 : payload > 125 ? 2 : 0);
}

function sizeOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, part) => sum + part.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

/**
 * Bounds what one address's sockets have sent that no complete frame has used yet: what `ws` buffers
 * for unfinished messages. `maxPayload` bounds one message of one socket; without this an address
 * could hold almost that much on each of its sockets (400 sockets, 1 MB each: 317 MB). The socket
 * whose data takes its address past the budget is sent a 1009 close and dropped at once.
 *
 * Counted from the socket's own reads (before `ws` parses them) and paid back as `ws` completes a
 * message, a ping or a pong: the count of a socket is its bytes in flight, give or take the few header
 * bytes of a fragmented message.
 */
export class InboundBudget {
  private readonly pending = new Map<string, number>();

  constructor(readonly maxBytes: number) {}

  /** Bytes in flight from `address` now (for tests and metrics). */
  inFlight(address: string): number {
    return this.pending.get(address) ?? 0;
  }

  track(ws: WebSocket, socket: Duplex, address: string): void {
    let mine = 0;
    let refused = false;
    const add = (bytes: number) => {
      mine += bytes;
      const total = (this.pending.get(address) ?? 0) + bytes;
      if (total > 0) this.pending.set(address, total);
      else this.pending.delete(address);
      return total;
    };
    const paid = (payload: number) => add(-Math.min(mine, payload + headerBytes(payload)));
    // Before `ws`'s own listener: a chunk is counted before the frames it completes are paid back.
    socket.prependListener('data', (chunk: Buffer) => {
      if (add(chunk.length) <= this.maxBytes || refused) return;
      refused = true;
      ws.close(
        TOO_BIG,
        'Too much unfinished data from your address (general.front_end.websocket_max_buffered_bytes_per_address)',
      );
      // Not the closing handshake: what it buffered goes now, and so does its share of the budget.
      ws.terminate();
    });
    ws.on('message', (data: RawData) => paid(sizeOf(data)));
    ws.on('ping', (data: Buffer) => paid(data.length));
    ws.on('pong', (data: Buffer) => paid(data.length));
    ws.once('close', () => add(-mine));
  }
}
