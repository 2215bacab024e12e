import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One POST a webhook receiver got. */
export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on every local address (so `localhost` reaches it whichever way it resolves).
 * `answer` picks each delivery's status (204 by default); every delivery is kept, whatever the status.
 */
export async function webhookReceiver(answer: (d: Delivery) => number = () => 204) {
  const received: Delivery[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      const delivery = { path: req.url ?? '', headers: req.headers, body };
      received.push(delivery);
      res.writeHead(answer(delivery)).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  if (typeof value !== 'string' || value === '') throw new Error(`no ${name} header`);
  return value;
};

/**
 * What a receiver following the Standard Webhooks spec (v1) does before it trusts a delivery: the
 * timestamp is recent (five minutes either way), and one `v1,` signature in the space-separated list
 * is the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>` under the secret (a
 * `whsec_` secret is base64, anything else its UTF-8 bytes). Throws why not; returns the parsed body.
 */
export function verifyStandardWebhook(
  secret: string,
  delivery: Pick<Delivery, 'headers' | 'body'>,
  now = Date.now(),
): Record<string, unknown> {
  const id = header(delivery.headers, 'webhook-id');
  const timestamp = header(delivery.headers, 'webhook-timestamp');
  const signatures = header(delivery.headers, 'webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new Error('webhook-timestamp is not Unix seconds');
  if (Math.abs(now / 1000 - Number(timestamp)) > 300) throw new Error('webhook-timestamp is too old or new');
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${delivery.body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new Error('no webhook-signature matches');
  return JSON.parse(delivery.body) as Record<string, unknown>;
}
