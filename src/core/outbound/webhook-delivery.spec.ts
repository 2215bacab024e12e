import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from './outbound-policy';
import { WebhookDelivery, type WebhookSettings } from './webhook-delivery';

describe('a signed webhook delivery', () => {
  let server: Server;
  let url: string;
  /** The status each next POST gets (204 once they run out). */
  let answers: number[] = [];
  const seen: IncomingHttpHeaders[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume().on('end', () => {
        seen.push(req.headers);
        res.writeHead(answers.shift() ?? 204).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  beforeEach(() => (seen.length = 0));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  const settings: WebhookSettings = {
    allowHosts: ['127.0.0.1'],
    secret: 's',
    maxAttempts: 3,
    backoffSeconds: 0.01,
    timeoutSeconds: 2,
  };
  const allowed = new OutboundPolicy({ allow_hosts: ['127.0.0.1'] });
  const message = {
    id: 'msg_1',
    body: '{}',
    contentType: 'application/json',
    headers: { authorization: 'Bearer x' },
    about: 'for test',
  };

  it('retries a 503 and a 429 with the same webhook-id, each attempt signed, until a 2xx', async () => {
    answers = [503, 429];
    const delivery = new WebhookDelivery(allowed, settings, 'Webhook');
    expect(await delivery.send(url, message)).toBe(true);
    expect(seen.map((h) => h['webhook-id'])).toEqual(['msg_1', 'msg_1', 'msg_1']);
    for (const h of seen) {
      expect(h['webhook-signature']).toMatch(/^v1,/);
      expect(h.authorization).toBe('Bearer x');
    }
  });

  it('gives up after max attempts, and does not retry a 4xx', async () => {
    answers = [500, 500, 500, 500];
    expect(await new WebhookDelivery(allowed, settings, 'Webhook').send(url, message)).toBe(false);
    expect(seen).toHaveLength(3);
    answers = [400];
    expect(await new WebhookDelivery(allowed, settings, 'Webhook').send(url, message)).toBe(false);
    expect(seen).toHaveLength(4);
    answers = [];
  });

  it('once closed, starts no retry', async () => {
    answers = [503, 503];
    const slow = new WebhookDelivery(allowed, { ...settings, backoffSeconds: 30 }, 'Webhook');
    const sent = slow.send(url, message);
    while (seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    await slow.close();
    expect(await sent).toBe(false);
    expect(seen).toHaveLength(1);
    answers = [];
  });

  it('refuses a URL off the allow list, with credentials, or at an address general.outbound refuses', () => {
    const delivery = new WebhookDelivery(
      new OutboundPolicy(),
      { ...settings, allowHosts: ['127.0.0.1', 'hooks.example.com'] },
      'Webhook',
    );
    expect(delivery.problem('https://other.example.com/x', 'url')).toMatch(
      /not in general\.async\.webhook_allow_hosts/,
    );
    expect(delivery.problem('https://u:p@hooks.example.com/x', 'url')).toMatch(/credentials/);
    expect(delivery.problem('http://127.0.0.1/x', 'url')).toMatch(/are refused/);
    expect(delivery.problem('https://hooks.example.com/x', 'url')).toBeNull();
  });
});
