import { PAGE_CSP } from '../../src/ui/page-headers';
import { errorOf, problemAt } from '../utils/config-helpers';
import { ECHO_YAML, startApp, type TestApp } from '../utils/test-app';
import { ensurePageBuilt } from '../utils/ui-page';

const withFrontEnd = (frontEnd: string) => `general:\n  front_end:\n${frontEnd}\n${ECHO_YAML}`;

describe('the built-in page is served at general.front_end.ui_path', () => {
  let t: TestApp;
  beforeAll(async () => {
    await ensurePageBuilt();
    t = await startApp(ECHO_YAML);
  });
  afterAll(() => t.close());

  it('GET / is the page: strict CSP, revalidated on each visit, and a session cookie of its own', async () => {
    const res = await fetch(`${t.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('set-cookie')).toMatch(
      /^nat-session=[\w-]{22}\.[\w-]{22}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const issued = res.headers.get('set-cookie')!.split(';')[0];
    const html = await res.text();
    expect(html).toContain('data-websocket-path="/websocket"');
    expect(html).toContain('data-workflow-path="/v1/workflow"');

    const again = await fetch(`${t.url}/`, {
      headers: { cookie: issued, 'if-none-match': res.headers.get('etag') ?? '' },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get('set-cookie')).toBeNull();
  });

  it('its script and stylesheet are cached for good (their names change with their content)', async () => {
    const html = await (await fetch(`${t.url}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      const res = await fetch(`${t.url}/${asset}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-security-policy')).toBe(PAGE_CSP);
      expect(res.headers.get('content-type')).toMatch(/^text\/(javascript|css); charset=utf-8$/);
    }
  });

  it('shadows nothing: unknown paths are 404 JSON and other routes answer as before', async () => {
    for (const path of ['/assets/nope.js', '/assets/..%2fpackage.json', '/index.html', '/nope', '/v1/nope']) {
      const res = await fetch(`${t.url}${path}`);
      expect([path, res.status]).toEqual([path, 404]);
      expect(await res.json()).toEqual({ detail: 'Not Found' });
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none';base-uri 'none';form-action 'none';frame-ancestors 'none'",
      );
    }
    const post = await fetch(`${t.url}/`, { method: 'POST' });
    expect(post.status).toBe(404);
    const wrongMethod = await fetch(`${t.url}/v1/workflow`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await fetch(`${t.url}/health`)).status).toBe(200);
  });

  it('is left out of the OpenAPI document', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(
      Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/assets') || p === '/icon.svg'),
    ).toEqual([]);
  });

  it('moves with ui_path, and null turns it off', async () => {
    const moved = await startApp(
      withFrontEnd('    ui_path: /console\n    workflow: { websocket_path: null }'),
    );
    const off = await startApp(withFrontEnd('    ui_path: null'));
    try {
      const page = await fetch(`${moved.url}/console`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('data-websocket-path=""');
      expect((await fetch(`${moved.url}/console/icon.svg`)).headers.get('content-type')).toBe(
        'image/svg+xml',
      );
      expect((await fetch(`${moved.url}/`)).status).toBe(404);
      const none = await fetch(`${off.url}/`);
      expect(none.status).toBe(404);
      expect(none.headers.get('set-cookie')).toBeNull();
    } finally {
      await moved.close();
      await off.close();
    }
  });

  it('a ui_path that is no absolute path is a config error', () => {
    expect(
      problemAt(errorOf(withFrontEnd('    ui_path: console')), 'general.front_end.ui_path').message,
    ).toContain('must be an absolute URL path');
  });
});
