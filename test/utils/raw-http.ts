import net from 'node:net';

export interface RawExchange {
  /** Each network read as it arrived (bytes as latin1 text). */
  reads: string[];
  /** The response head (status line and headers). */
  head: string;
  /** Whether the server closed the connection (we never do). */
  closedByServer: Promise<void>;
  socket: net.Socket;
}

/** Sends a raw HTTP/1.1 request and records every read, so tests can see how bytes were split. */
export function rawRequest(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body = '',
) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.setNoDelay(true);
  const reads: string[] = [];
  socket.on('data', (chunk: Buffer) => reads.push(chunk.toString('latin1')));
  const closedByServer = new Promise<void>((resolve) => socket.once('end', () => resolve()));
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body !== '') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`);
  return {
    reads,
    socket,
    closedByServer,
    head: () => reads.join('').split('\r\n\r\n', 1)[0],
  };
}

/** The body bytes of one read of a chunked response, without the chunk framing. */
export function unchunk(read: string): string {
  let rest = read;
  let body = '';
  for (;;) {
    const eol = rest.indexOf('\r\n');
    if (eol < 0) return body + rest;
    const size = parseInt(rest.slice(0, eol), 16);
    if (Number.isNaN(size)) return body + rest;
    if (size === 0) return body;
    body += rest.slice(eol + 2, eol + 2 + size);
    rest = rest.slice(eol + 2 + size + 2);
  }
}
