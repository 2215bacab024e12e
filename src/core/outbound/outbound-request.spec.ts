import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundPolicy } from './outbound-policy';
import { outboundRequest } from './outbound-request';
import { redactUrl, redactUrlsIn } from './redact-url';

describe('the outbound-request policy', () => {
  let server: Server;
  let port: number;
  const seen: { url?: string; key?: string }[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url, key: req.headers['x-api-key'] as string | undefined });
      if (req.url === '/big') return res.end('x'.repeat(5000));
      // Never answered (closed with the server): only the timeout ends the request.
      if (req.url === '/slow') return;
      if (req.url === '/here') return res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/away') {
        return res.writeHead(302, { location: `http://localhost:${port}/ok?token=secret` }).end();
      }
      res.end('ok');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => (seen.length = 0));
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it.each([
    '169.254.169.254',
    '[::1]',
    '[fc00::1]',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '127.0.0.1',
    '0.0.0.0',
    '[::ffff:127.0.0.1]',
  ])('refuses %s unless it is listed, before connecting', async (host) => {
    await expect(outboundRequest(new OutboundPolicy(), `http://${host}:${port}/ok`)).rejects.toThrow(
      /are refused: a private, loopback or link-local address \(allow it in general.outbound.allow_hosts\)/,
    );
  });

  it('checks the address a name resolves to, when connecting', async () => {
    await expect(outboundRequest(new OutboundPolicy(), `http://localhost:${port}/ok`)).rejects.toThrow(
      /localhost \((127\.0\.0\.1|::1)\) are refused/,
    );
    expect(seen).toEqual([]);
  });

  it.each([['127.0.0.1'], ['127.0.0.0/8'], ['localhost']])('allows loopback listed as %s', async (entry) => {
    const policy = new OutboundPolicy({ allow_hosts: [entry] });
    const host = entry === 'localhost' ? 'localhost' : '127.0.0.1';
    const res = await outboundRequest(policy, `http://${host}:${port}/ok`);
    expect([res.status, res.body.toString()]).toEqual([200, 'ok']);
  });

  const allowed = new OutboundPolicy({
    allow_hosts: ['127.0.0.1'],
    // Long enough for a loaded machine to answer the others; /slow never answers.
    timeout_seconds: 2,
    max_response_bytes: 100,
  });

  it('cuts or refuses a response past max_response_bytes, and gives up after timeout_seconds', async () => {
    const cut = await outboundRequest(allowed, `http://127.0.0.1:${port}/big`);
    expect([cut.body.length, cut.truncated]).toEqual([100, true]);
    await expect(
      outboundRequest(allowed, `http://127.0.0.1:${port}/big`, { overflow: 'fail' }),
    ).rejects.toThrow('answered more than 100 bytes');
    await expect(outboundRequest(allowed, `http://127.0.0.1:${port}/slow`)).rejects.toThrow(
      'no answer within 2s',
    );
  });

  it('follows a redirect within the origin only; configured headers never leave it', async () => {
    const headers = { 'x-api-key': 'internal' };
    const here = await outboundRequest(allowed, `http://127.0.0.1:${port}/here`, { headers });
    expect([here.status, here.url.pathname]).toEqual([200, '/ok']);
    const away = await outboundRequest(allowed, `http://127.0.0.1:${port}/away`, { headers });
    expect(away.status).toBe(302);
    expect(away.redirectNotFollowed).toBe(`http://localhost:${port}/ok?…`);
    expect(seen).toEqual([
      { url: '/here', key: 'internal' },
      { url: '/ok', key: 'internal' },
      { url: '/away', key: 'internal' },
    ]);
  });

  it('redacts userinfo and query strings from URLs it shows', () => {
    expect(redactUrl('https://user:pw@llm.example.com/v1?api-key=s3cret#x')).toBe(
      'https://llm.example.com/v1?…',
    );
    expect(redactUrl('not a url?api-key=s3cret')).toBe('not a url');
    expect(redactUrlsIn('failed: http://u:p@h/x?k=s (https://h2/y?k=t), done')).toBe(
      'failed: http://h/x?… (https://h2/y?…), done',
    );
  });
});
