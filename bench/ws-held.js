'use strict';
/**
 * What unfinished WebSocket messages cost the server: N sockets from one address each send most of
 * a 1 MiB frame and stop; the server's RSS and heap after a full GC, before and after, and how many of
 * the sockets it closed. Usage (after `npm run build`):
 *   node bench/ws-held.js [--sockets 400] [--sent 1000000]
 */
const net = require('node:net');
const { randomBytes } = require('node:crypto');
const { startServer } = require('./lib/servers');

function arg(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
}

/** The first `sent` bytes of a masked text frame that declares 1,048,000 bytes of payload. */
function partialFrame(sent) {
  const length = 1_048_000;
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  randomBytes(4).copy(header, 10);
  return Buffer.concat([header, Buffer.alloc(Math.max(0, sent - 14), 0x61)]);
}

function openSocket(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const state = { socket, closed: false };
    socket.on('error', () => undefined);
    socket.on('close', () => (state.closed = true));
    socket.on('data', (chunk) => {
      if (text.includes('\r\n\r\n')) return;
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        if (text.startsWith('HTTP/1.1 101')) resolve(state);
        else reject(new Error(text.split('\r\n')[0]));
      }
    });
    socket.write(
      `GET /websocket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    );
  });
}

const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main() {
  const count = arg('sockets', 400);
  const sent = arg('sent', 1_000_000);
  const server = await startServer('agui', 'stream', { nodeArgs: ['--expose-gc'] });
  const sockets = [];
  try {
    const before = (await server.memory()).usage;
    for (let i = 0; i < count; i++) sockets.push(await openSocket(server.port));
    const frame = partialFrame(sent);
    await Promise.all(sockets.map((s) => new Promise((resolve) => s.socket.write(frame, resolve))));
    // Until the server has read what it will read: RSS stops growing.
    let last = 0;
    for (let still = 0; still < 3;) {
      await new Promise((r) => setTimeout(r, 500));
      const { rss } = (await server.memory()).usage;
      still = Math.abs(rss - last) < 1024 * 1024 ? still + 1 : 0;
      last = rss;
    }
    const after = (await server.memory()).usage;
    const closed = sockets.filter((s) => s.closed).length;
    console.log(
      `${count} sockets, ${mib(sent)} of a 1 MiB frame each: ${closed} closed by the server; ` +
        `RSS ${mib(before.rss)} -> ${mib(after.rss)} (+${mib(after.rss - before.rss)}), ` +
        `heap+external ${mib(before.heapUsed + before.external)} -> ${mib(after.heapUsed + after.external)}`,
    );
  } finally {
    for (const s of sockets) s.socket.destroy();
    await server.stop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
