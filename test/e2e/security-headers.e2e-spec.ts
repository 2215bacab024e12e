import { postJson } from '../utils/sse';
import { chromiumPath, requires } from '../utils/requires';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';

function expectSecurityHeaders(headers: Headers) {
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
}

describe('security headers', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('every JSON answer (200, 404, 422) carries nosniff, a deny-all CSP and no referrer, and no ETag (as NAT)', async () => {
    const answers = [
      await fetch(`${t.url}/health`),
      await fetch(`${t.url}/nope`),
      await fetch(`${t.url}/v1/workflow`, { method: 'POST' }),
    ];
    for (const res of answers) {
      expectSecurityHeaders(res.headers);
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(res.headers.get('etag')).toBeNull();
    }
    const ok = await postJson(`${t.url}/v1/workflow`, { input_message: 'hi' });
    expectSecurityHeaders(ok.headers);
    expect(ok.headers.get('etag')).toBeNull();
  });

  it('the OAuth callback page carries them too, and keeps window.opener for the popup flow', async () => {
    const res = await fetch(`${t.url}/auth/redirect?code=c&state=unknown`);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expectSecurityHeaders(res.headers);
    expect(res.headers.get('cross-origin-opener-policy')).toBeNull();
  });

  it('/docs carries them', async () => {
    const res = await fetch(`${t.url}/docs`);
    expect(res.status).toBe(200);
    expectSecurityHeaders(res.headers);
  });
});

requires('chromium')('security headers in a browser', () => {
  let t: TestApp;
  beforeAll(async () => (t = await startApp(ECHO_YAML)));
  afterAll(() => t.close());

  it('Swagger UI at /docs still renders under its CSP (Chromium)', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') violations.push(m.text());
      });
      await page.goto(`${t.url}/docs`);
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 10_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Interlude');
      await page.waitForSelector('.opblock', { timeout: 10_000 });
      expect(violations.filter((v) => /Content Security Policy/i.test(v))).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
