import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';
import { ensurePageBuilt } from '../utils/ui-page';

const withFrontEnd = (frontEnd: string) => `general:\n  front_end:\n${frontEnd}\n${ECHO_YAML}`;

/** The page's raw Set-Cookie headers for a GET with these request headers. */
async function pageCookies(t: TestApp, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await fetch(`${t.url}/`, { headers });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  return res.headers.getSetCookie();
}

const valueOf = (setCookie: string) => setCookie.split(';')[0];

describe("the page's nat-session cookie", () => {
  beforeAll(() => ensurePageBuilt());

  describe('is one the server issued, or a fresh one', () => {
    let t: TestApp;
    beforeAll(async () => (t = await startApp(ECHO_YAML)));
    afterAll(() => t.close());

    it('a value the server issued is kept; a value planted in the browser is replaced, never adopted', async () => {
      const [first] = await pageCookies(t);
      expect(await pageCookies(t, { cookie: valueOf(first) })).toEqual([]);

      const forged = valueOf(first).replace(/\.[\w-]+$/, `.${randomBytes(16).toString('base64url')}`);
      for (const planted of [
        'nat-session=attacker-knows-this',
        'nat-session=6f1c2a40-8b7e-4c1d-9a8e-2f3b4c5d6e7f',
        `nat-session=${forged.slice('nat-session='.length)}`,
        `nat-session=${valueOf(first).slice('nat-session='.length)}.x`,
      ]) {
        const [replaced] = await pageCookies(t, { cookie: planted });
        expect([planted, replaced]).toEqual([
          planted,
          expect.stringMatching(/^nat-session=[\w-]{22}\.[\w-]{22};/),
        ]);
        expect(valueOf(replaced)).not.toBe(planted);
        expect(valueOf(replaced)).not.toBe(valueOf(first));
      }
    });
  });

  it('replicas sharing the token key recognise each other’s sessions; a server with another key does not', async () => {
    const variable = `INTERLUDE_TEST_PAGE_KEY_${randomBytes(4).toString('hex')}`;
    process.env[variable] = randomBytes(32).toString('base64');
    const yaml = `general:\n  executions: { token_key_env: ${variable} }\n${ECHO_YAML}`;
    const a = await startApp(yaml);
    const b = await startApp(yaml);
    const other = await startApp(ECHO_YAML);
    try {
      const [fromA] = await pageCookies(a);
      expect(await pageCookies(b, { cookie: valueOf(fromA) })).toEqual([]);
      expect(await pageCookies(other, { cookie: valueOf(fromA) })).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close(), other.close()]);
      delete process.env[variable];
    }
  });

  describe('is Secure when the browser reached the server over HTTPS', () => {
    const secure = (setCookie: string) => setCookie.split('; ').includes('Secure');

    it('public_base_url https: Secure; http: not', async () => {
      const https = await startApp(withFrontEnd('    public_base_url: https://chat.example.com'));
      const plain = await startApp(withFrontEnd('    public_base_url: http://localhost:8000'));
      try {
        expect(secure((await pageCookies(https))[0])).toBe(true);
        expect(secure((await pageCookies(plain, { 'x-forwarded-proto': 'https' }))[0])).toBe(false);
      } finally {
        await Promise.all([https.close(), plain.close()]);
      }
    });

    it('X-Forwarded-Proto: https counts only from a proxy listed in trust_proxy', async () => {
      const behindProxy = await startApp(withFrontEnd('    trust_proxy: [loopback]'));
      const noProxy = await startApp(ECHO_YAML);
      try {
        expect(secure((await pageCookies(behindProxy, { 'x-forwarded-proto': 'https' }))[0])).toBe(true);
        expect(secure((await pageCookies(behindProxy, { 'x-forwarded-proto': 'http' }))[0])).toBe(false);
        expect(secure((await pageCookies(behindProxy))[0])).toBe(false);
        expect(secure((await pageCookies(noProxy, { 'x-forwarded-proto': 'https' }))[0])).toBe(false);
      } finally {
        await Promise.all([behindProxy.close(), noProxy.close()]);
      }
    });

    it('through a TLS-terminating proxy in front of it (a real one, speaking HTTP to the server)', async () => {
      const t = await startApp(withFrontEnd('    trust_proxy: [127.0.0.1]'));
      const target = new URL(t.url);
      // Stands in for nginx's `proxy_set_header X-Forwarded-Proto $scheme` on an https listener.
      const proxy = http.createServer((req, res) => {
        const upstream = http.request(
          {
            host: target.hostname,
            port: target.port,
            path: req.url,
            method: req.method,
            headers: { ...req.headers, 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.9' },
          },
          (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
          },
        );
        req.pipe(upstream);
      });
      await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
      try {
        const res = await fetch(`http://127.0.0.1:${(proxy.address() as AddressInfo).port}/`);
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        expect(res.headers.getSetCookie()).toEqual([expect.stringMatching(/; Secure; SameSite=Lax$/)]);
      } finally {
        proxy.closeAllConnections();
        await new Promise((r) => proxy.close(r));
        await t.close();
      }
    });
  });
});
