import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { eventually, scriptedYaml, startApp, type TestApp } from '../utils/test-app';

const MESSAGE = 65_000;
const SENT = 60_000;

/** A masked text frame (as a client sends it) carrying a JSON message of `bytes` bytes. */
function clientFrame(bytes: number): Buffer {
  const prefix = '{"type":"padding","pad":"';
  const payload = Buffer.from(`${prefix}${'a'.repeat(bytes - prefix.length - 2)}"}`);
  const mask = randomBytes(4);
  const header = Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 0xff]);
  return Buffer.concat([header, mask, payload.map((b, i) => b ^ mask[i % 4])]);
}

/** A WebSocket spoken byte by byte over TCP, to send frames that never end. */
class RawSocket {
  private data = Buffer.alloc(0);
  private body = -1;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.data = Buffer.concat([this.data, chunk]);
      if (this.body < 0) {
        const end = this.data.indexOf('\r\n\r\n');
        if (end >= 0) this.body = end + 4;
      }
    });
    socket.on('error', () => undefined);
  }

  static async open(base: string): Promise<RawSocket> {
    const { hostname, port } = new URL(base);
    const socket = connect(Number(port), hostname);
    const raw = new RawSocket(socket);
    socket.write(
      `GET /websocket HTTP/1.1\r\nHost: ${hostname}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
    await eventually(() => expect(raw.handshake).toMatch(/^HTTP\/1.1 101 /));
    return raw;
  }

  get handshake(): string {
    return this.body < 0 ? '' : this.data.subarray(0, this.body).toString('latin1');
  }

  /** What the server sent after the handshake. */
  get frames(): Buffer {
    return this.body < 0 ? Buffer.alloc(0) : this.data.subarray(this.body);
  }

  /** The server's frames so far (unmasked): opcode and payload. */
  private parsed(): { opcode: number; payload: Buffer }[] {
    const frames = [];
    const data = this.frames;
    for (let at = 0; at + 2 <= data.length;) {
      let length = data[at + 1] & 0x7f;
      let start = at + 2;
      if (length === 126) [length, start] = [data.readUInt16BE(at + 2), at + 4];
      else if (length === 127) [length, start] = [Number(data.readBigUInt64BE(at + 2)), at + 10];
      if (start + length > data.length) break;
      frames.push({ opcode: data[at] & 0x0f, payload: data.subarray(start, start + length) });
      at = start + length;
    }
    return frames;
  }

  /** The code of the close frame the server sent, if it did. */
  get closeCode(): number | undefined {
    return this.parsed()
      .find((f) => f.opcode === 0x8)
      ?.payload.readUInt16BE(0);
  }

  /** Whether the server answered `times` complete messages (its error_message for the unknown type). */
  answered(times = 1): boolean {
    const texts = this.parsed().filter((f) => f.opcode === 0x1);
    return texts.filter((f) => f.payload.toString().includes('invalid_message_type')).length >= times;
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  destroy(): void {
    this.socket.destroy();
  }
}

describe('WebSocket: bytes of unfinished messages, bounded per address across its sockets', () => {
  let t: TestApp;
  const opened: RawSocket[] = [];
  beforeAll(async () => {
    t = await startApp(
      scriptedYaml(
        `- stream: { text: hi }`,
        undefined,
        `general:
  front_end:
    websocket_max_message_bytes: 65536
    websocket_max_buffered_bytes_per_address: 200000`,
      ),
    );
  });
  afterEach(() => opened.splice(0).forEach((s) => s.destroy()));
  afterAll(() => t.close());

  const open = async () => {
    const raw = await RawSocket.open(t.url);
    opened.push(raw);
    return raw;
  };

  it('the socket whose unfinished frame passes the budget is closed with 1009; finished messages pay it back', async () => {
    const sockets = [await open(), await open(), await open(), await open()];
    const frames = sockets.map(() => clientFrame(MESSAGE));
    sockets.forEach((s, i) => s.write(frames[i].subarray(0, SENT)));
    // Four unfinished 60 kB frames from one address: the one that passes 200 kB is refused.
    await eventually(() => expect(sockets.filter((s) => s.closeCode !== undefined)).toHaveLength(1));
    const [refused] = sockets.filter((s) => s.closeCode !== undefined);
    expect(refused.closeCode).toBe(1009);
    refused.destroy();
    // Two of the others finish their messages: the server reads them and answers.
    const [first, second] = sockets.filter((s) => s !== refused);
    first.write(frames[sockets.indexOf(first)].subarray(SENT));
    second.write(frames[sockets.indexOf(second)].subarray(SENT));
    await eventually(() => expect([first.answered(), second.answered()]).toEqual([true, true]));
    // What they finished no longer counts: another socket's unfinished frame fits again.
    const next = await open();
    const frame = clientFrame(MESSAGE);
    next.write(frame.subarray(0, SENT));
    next.write(frame.subarray(SENT));
    await eventually(() => expect(next.answered()).toBe(true));
    expect(next.closeCode).toBeUndefined();
  });

  it('a client sending many whole messages on one socket is never refused', async () => {
    const client = await open();
    for (let i = 1; i <= 8; i++) {
      client.write(clientFrame(MESSAGE));
      await eventually(() => expect(client.answered(i)).toBe(true));
    }
    expect(client.closeCode).toBeUndefined();
  });
});
